"""Turns a case's params into the implementation's arguments, its inputs and expected checksum.

Inputs come from parbench.inputs (cached, seeded) so every runtime gets the very same bytes;
the expected checksum always comes from parbench.oracle, never from an implementation.
"""
from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Callable

from parbench import oracle
from parbench.inputs import batch_docs, sdes_text

POSTGRES_DEFAULT_URL = "postgresql://parbench:parbench@127.0.0.1:5432/parbench"


@functools.lru_cache(maxsize=64)
def _sdes_expected(size: int, key: int, seed_article: bool) -> str:
    path = sdes_text.ensure_seed_article_text() if seed_article else sdes_text.ensure(size)
    return oracle.sdes_ecb_checksum(path.read_bytes(), key)


def _sdes_input(params: dict[str, Any]) -> tuple[Path, bool]:
    seed_article = params["size"] == "seed-article"
    path = sdes_text.ensure_seed_article_text() if seed_article else sdes_text.ensure(int(params["size"]))
    return path, seed_article


@functools.lru_cache(maxsize=16)
def _batch(docs: int, text_length: int, annotations: int) -> batch_docs.BatchInput:
    return batch_docs.ensure(docs, text_length, annotations)


def expected_checksum(workload: str, params: dict[str, Any]) -> str:
    if workload == "keygen":
        return oracle.keygen_checksum(int(params["count"]), int(params["bytes"]),
                                      params["source"], int(params.get("seed", 0)))
    if workload == "sdes-ecb":
        _, seed_article = _sdes_input(params)
        size = 0 if seed_article else int(params["size"])
        return _sdes_expected(size, int(params["key"]), seed_article)
    if workload == "batch-job":
        return _batch(int(params["docs"]), int(params["text_length"]),
                      int(params["annotations"])).expected_checksum
    if workload == "spawn-chain":
        return oracle.spawn_chain_checksum(int(params["n"]))
    if workload == "coroutine-swarm":
        return _swarm_expected(int(params["tasks"]), int(params["steps"]))
    if workload == "noop":
        return "noop"
    raise ValueError(f"no oracle for workload {workload}")


@functools.lru_cache(maxsize=16)
def _swarm_expected(tasks: int, steps: int) -> str:
    return oracle.coroutine_swarm_checksum(tasks, steps)


# A process's arguments, and (for batch-job) how to recompute the checksum from its database.
Recheck = Callable[[], str]


def process_arguments(workload: str, params: dict[str, Any], scratch: Path
                      ) -> tuple[dict[str, Any], Recheck | None]:
    """The protocol params for one fresh process; `scratch` is a folder of its own."""
    if workload == "sdes-ecb":
        path, _ = _sdes_input(params)
        rest = {k: v for k, v in params.items() if k != "size"}
        return {"input": str(path), **rest}, None
    if workload == "batch-job":
        return _batch_job_arguments(params, scratch)
    return dict(params), None


def _batch_job_arguments(params: dict[str, Any], scratch: Path):
    batch = _batch(int(params["docs"]), int(params["text_length"]), int(params["annotations"]))
    rest = {k: v for k, v in params.items() if k not in ("docs", "text_length", "annotations", "db")}
    target = str(params.get("db", "sqlite"))
    if target == "sqlite":
        db_file = batch_docs.fresh_sqlite_copy(batch, scratch / "job.sqlite")
        return ({"docs_dir": str(batch.docs_dir), "db": f"sqlite:{db_file}", **rest},
                lambda: batch_docs.sqlite_annotations_digest(db_file))
    url = POSTGRES_DEFAULT_URL if target in ("postgres", "postgresql") else target
    from parbench.inputs import batch_postgres
    batch_postgres.reset(url, batch.documents)
    return ({"docs_dir": str(batch.docs_dir), "db": url, **rest},
            lambda: batch_postgres.annotations_digest(url))
