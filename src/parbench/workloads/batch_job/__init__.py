"""batch-job (seed 002): documents re-aligned (CPU) and written back to a real database (I/O).

Proofs of work: every process gets a fresh database (restored from its pristine tables before
each repetition but the first), and after it ends the harness reads that database back: the annotations' digest and every document's length, annotation count and
status must be what the spec's job leaves."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parbench.workloads.batch_job import inputs as batch_docs, postgres
from parbench.workloads.params import Choice, Integer, ParamError
from parbench.workloads.seeds import Figure, Seed

# A role and database of the job's own (scripts/postgres-up), not the stores': its benchmark is
# handed this URL, password and all, and must not reach a store's tables of earlier answers.
POSTGRES_DEFAULT_URL = "postgresql://parbench_job:parbench_job@127.0.0.1:5432/parbench_job"


@dataclass(frozen=True)
class Database:
    """sqlite (a fresh file per process), postgres (the local server) or a postgresql:// URL."""

    def check(self, name: str, value: Any) -> str:
        if value in ("sqlite", "postgres", "postgresql") or (
                isinstance(value, str) and value.startswith(("postgresql://", "postgres://"))):
            return value
        raise ParamError(f"--param {name} wants sqlite, postgres or a postgresql://USER:PASS@HOST/DB URL, "
                         f"got {value!r}")


PARAMS = {"docs": Integer(1, 10 ** 6, "a document count"), "text_length": Integer(1, 10 ** 6, "a length"),
          "annotations": Integer(0, 10 ** 5, "an annotation count"), "db": Database(),
          "kernel": Choice(("portable", "tuned"))}
SWEPT_PARAM = "docs"
ORDER = 3
SWEEPS = {"scaling": "workers", "crossover": "size"}
# No phase outside the timed region holds work of its own: the checksum digests the few rows the
# job wrote (0.8-16 ms in the sitting of 2026-11-29) and there is no ceiling.
UNTIMED_WORK = ()

SEED = Seed("002", "batch-job", "batch-job: 800 documents, CPU + database (Ruby)",
            "4 cores, about 30 concurrent units", 4, (
                Figure("serial", "ruby", "seq", "docs", 800, 800, "document", 147e9),
                Figure("one Thread per document", "ruby", "thread", "docs", 800, 800, "document", 147e9),
                Figure("one forked process per document", "ruby", "fork", "docs", 800, 800, "document", 108e9),
                Figure("one Ractor per document", "ruby", "ractor", "docs", 800, 800, "document", 112e9),
            ), "the GIL, processes and actors differ; I/O bounds the speedup (Amdahl)")


def footprint(params: dict[str, Any]) -> tuple[int, int]:
    """Disk for the documents and their SQLite template (none once cached), and memory for the
    documents and, when the answer is not cached, the oracle's LCS table of one document:
    4 bytes per (old, new) pair of characters (workloads/footprint.py checks both)."""
    docs, length = int(params.get("docs", 1)), int(params.get("text_length", 1))
    folder = batch_docs.cache_root() / f"batch3-s2-d{docs}-l{length}-a{params.get('annotations')}"
    cached = (folder / "expected.txt").exists()
    table = 0 if cached else 4 * (length + length // 4 + 2) ** 2     # an edit may lengthen the new text
    return (0 if cached else 4 * docs * length), 6 * docs * length + table


@functools.lru_cache(maxsize=16)
def _batch(docs: int, text_length: int, annotations: int) -> batch_docs.BatchInput:
    return batch_docs.ensure(docs, text_length, annotations)


def _input(params: dict[str, Any]) -> batch_docs.BatchInput:
    return _batch(int(params["docs"]), int(params["text_length"]), int(params["annotations"]))


def expected_checksum(params: dict[str, Any], variant: int | None = None) -> str:
    return _input(params).expected_checksum


def expected_items(params: dict[str, Any]) -> int:
    return int(params["docs"])


def process_arguments(params: dict[str, Any], scratch: Path):
    """Each process rewrites its database, so it gets a fresh one: a copy of the SQLite template,
    or the PostgreSQL tables recreated, with the pristine tables it restores its job from before
    each repetition but its first; the recheck then reads back what the last repetition left
    there, and that the pristine tables still hold the starting rows."""
    batch = _input(params)
    rest = {k: v for k, v in params.items() if k not in ("docs", "text_length", "annotations", "db")}
    target = str(params.get("db", "sqlite"))
    if target == "sqlite":
        db_file = batch_docs.fresh_sqlite_copy(batch, scratch / "job.sqlite")
        return ({"docs_dir": str(batch.docs_dir), "db": f"sqlite:{db_file}", **rest},
                lambda: batch_docs.tables_problem(batch, *batch_docs.sqlite_tables(db_file))
                or batch_docs.pristine_problem(batch, *batch_docs.sqlite_pristine_tables(db_file)))
    own_database = target in ("postgres", "postgresql")
    url = POSTGRES_DEFAULT_URL if own_database else target
    postgres.reset(url, batch.documents, own_database)
    return ({"docs_dir": str(batch.docs_dir), "db": url, **rest},
            lambda: batch_docs.tables_problem(batch, *postgres.tables(url))
            or batch_docs.pristine_problem(batch, *postgres.pristine_tables(url)))
