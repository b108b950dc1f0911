"""The batch-job inputs: document files and the prepared database they are aligned against."""
from __future__ import annotations

import json
import random
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from parbench.project import cache_root
from parbench.workloads.batch_job.oracle import align_annotations, annotation_rows_digest
from parbench.workloads.input_files import InputError, publish_atomically

VOCABULARY = ["alpha", "beam", "core", "delta", "edge", "flow", "graph", "heap", "index", "join",
              "kernel", "lock", "merge", "node", "order", "page", "query", "row", "scan", "table",
              "union", "view", "write", "yield", "zone", "actor", "batch", "cache", "fiber",
              "queue", "ractor", "thread", "fork", "spawn", "task", "mailbox", "scheduler"]
LABELS = ["PERSON", "PLACE", "ORG", "DATE", "EVENT", "WORK"]

SCHEMA = """
CREATE TABLE documents(doc_id INTEGER PRIMARY KEY, length INTEGER NOT NULL,
                       annotation_count INTEGER NOT NULL, status TEXT NOT NULL);
CREATE TABLE annotations(id INTEGER PRIMARY KEY, doc_id INTEGER NOT NULL,
                         span_begin INTEGER NOT NULL, span_end INTEGER NOT NULL, label TEXT NOT NULL);
CREATE INDEX annotations_by_doc ON annotations(doc_id);
CREATE TABLE pristine_documents(doc_id INTEGER PRIMARY KEY, length INTEGER NOT NULL,
                                annotation_count INTEGER NOT NULL, status TEXT NOT NULL);
CREATE TABLE pristine_annotations(doc_id INTEGER NOT NULL, span_begin INTEGER NOT NULL,
                                  span_end INTEGER NOT NULL, label TEXT NOT NULL);
"""
# The pristine tables hold the starting rows, so that a process can restore its job before each
# repetition but its first (docs/protocol.md, batch-job); the recheck proves they were not touched.
PRISTINE_COPY = ("INSERT INTO pristine_documents SELECT doc_id, length, annotation_count, status FROM documents",
                 "INSERT INTO pristine_annotations SELECT doc_id, span_begin, span_end, label FROM annotations")


@dataclass(frozen=True)
class BatchInput:
    docs_dir: Path
    template_db: Path        # SQLite file every run starts from (copied, never written)
    expected_checksum: str   # oracle digest of the annotations after a correct run
    documents: list[dict]    # id, old, new, annotations: what a PostgreSQL run is seeded with
    expected_documents: dict[int, tuple[int, int, str]]   # doc_id → (length, annotation_count, status)


def _text(rng: random.Random, length: int) -> list[str]:
    words, have = [], 0
    while have < length:
        word = rng.choice(VOCABULARY)
        words.append(word)
        have += len(word) + 1
    return words


def _edit(rng: random.Random, words: list[str], rate: float = 0.05) -> list[str]:
    """About `rate` of the words inserted before, deleted or replaced, as a re-edited text."""
    out = []
    for word in words:
        roll = rng.random()
        if roll < rate / 3:
            out.extend([rng.choice(VOCABULARY), word])
        elif roll < 2 * rate / 3:
            continue
        elif roll < rate:
            out.append(rng.choice(VOCABULARY))
        else:
            out.append(word)
    return out


def _spans(rng: random.Random, text: str, count: int) -> list[tuple[int, int, str]]:
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == " "]
    spans = []
    for _ in range(count):
        first = rng.randrange(len(starts))
        last = min(len(starts) - 1, first + rng.randint(0, 2))
        end = text.find(" ", starts[last])
        spans.append((starts[first], len(text) if end < 0 else end, rng.choice(LABELS)))
    return spans


def make_documents(docs: int, text_length: int, annotations: int, seed: int) -> list[dict]:
    rng = random.Random(seed)
    documents = []
    for doc_id in range(docs):
        words = _text(rng, text_length)
        old = " ".join(words)[:text_length]
        new = " ".join(_edit(rng, old.split(" ")))
        documents.append({"id": doc_id, "old": old, "new": new,
                          "annotations": _spans(rng, old, annotations)})
    return documents


def write_sqlite(path: Path, documents: list[dict]) -> None:
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(SCHEMA)
    db.executemany("INSERT INTO documents VALUES (?, ?, ?, 'pending')",
                   [(d["id"], len(d["old"]), len(d["annotations"])) for d in documents])
    db.executemany("INSERT INTO annotations(doc_id, span_begin, span_end, label) VALUES (?, ?, ?, ?)",
                   [(d["id"], b, e, label) for d in documents for b, e, label in d["annotations"]])
    for statement in PRISTINE_COPY:
        db.execute(statement)
    db.commit()
    db.close()


def expected_tables(documents: list[dict]) -> tuple[str, dict[int, tuple[int, int, str]]]:
    """The oracle's annotations digest and each document's row after a correct run."""
    rows, rows_of_documents = [], {}
    for d in documents:
        aligned = align_annotations(d["old"].encode(), d["new"].encode(), d["annotations"])
        rows.extend((d["id"], b, e, label) for b, e, label in aligned)
        rows_of_documents[d["id"]] = (len(d["new"]), len(aligned), "aligned")
    return annotation_rows_digest(rows), rows_of_documents


def ensure(docs: int, text_length: int, annotations: int, seed: int = 2) -> BatchInput:
    folder = cache_root() / f"batch3-s{seed}-d{docs}-l{text_length}-a{annotations}"
    documents = make_documents(docs, text_length, annotations, seed)
    if not (folder / "expected.txt").exists():
        folder.parent.mkdir(parents=True, exist_ok=True)
        tmp = folder.with_name(folder.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        try:
            _write(tmp, documents)
        except (OSError, sqlite3.Error) as error:
            shutil.rmtree(tmp, ignore_errors=True)     # never leave a partial input behind
            raise InputError(f"cannot write the batch-job input {folder}: {error}") from None
        shutil.rmtree(folder, ignore_errors=True)
        publish_atomically(tmp, folder)
    expected_documents = {int(k): tuple(v) for k, v in
                          json.loads((folder / "expected-documents.json").read_text()).items()}
    return BatchInput(folder / "docs", folder / "template.sqlite",
                      (folder / "expected.txt").read_text().strip(), documents, expected_documents)


def _write(tmp: Path, documents: list[dict]) -> None:
    (tmp / "docs").mkdir(parents=True)
    for d in documents:
        (tmp / "docs" / f"{d['id']}.json").write_text(
            json.dumps({"id": d["id"], "old": d["old"], "new": d["new"]}))
    write_sqlite(tmp / "template.sqlite", documents)
    digest, rows_of_documents = expected_tables(documents)
    (tmp / "expected-documents.json").write_text(json.dumps(rows_of_documents))
    (tmp / "expected.txt").write_text(digest + "\n")


def fresh_sqlite_copy(batch: BatchInput, destination: Path) -> Path:
    """A writable copy of the template: the job rewrites annotations, so each process gets its own."""
    shutil.copyfile(batch.template_db, destination)
    return destination


ANNOTATION_ROWS = "SELECT doc_id, span_begin, span_end, label FROM annotations"
DOCUMENT_ROWS = "SELECT doc_id, length, annotation_count, status FROM documents"
PRISTINE_ANNOTATION_ROWS = "SELECT doc_id, span_begin, span_end, label FROM pristine_annotations"
PRISTINE_DOCUMENT_ROWS = "SELECT doc_id, length, annotation_count, status FROM pristine_documents"


def sqlite_tables(path: Path) -> tuple[list[tuple], list[tuple]]:
    db = sqlite3.connect(path)
    try:
        return db.execute(ANNOTATION_ROWS).fetchall(), db.execute(DOCUMENT_ROWS).fetchall()
    finally:
        db.close()


def sqlite_pristine_tables(path: Path) -> tuple[list[tuple], list[tuple]]:
    db = sqlite3.connect(path)
    try:
        return db.execute(PRISTINE_ANNOTATION_ROWS).fetchall(), db.execute(PRISTINE_DOCUMENT_ROWS).fetchall()
    finally:
        db.close()


def sqlite_annotations_digest(path: Path) -> str:
    return annotation_rows_digest(sqlite_tables(path)[0])


def tables_problem(batch: BatchInput, annotations: list[tuple], documents: list[tuple]) -> str | None:
    """Why the database a process left is not what the spec's job makes of it, or None: the
    annotations' digest, and every document's length, annotation count and status (so a job
    that skips `UPDATE documents` fails as surely as one that skips the annotations)."""
    digest = annotation_rows_digest(annotations)
    if digest != batch.expected_checksum:
        return f"database digest {digest}, expected {batch.expected_checksum}"
    found = {int(doc_id): (length, count, status) for doc_id, length, count, status in documents}
    for doc_id, want in sorted(batch.expected_documents.items()):
        got = found.get(doc_id)
        if got is None or tuple(got) != tuple(want):
            return (f"documents row {doc_id} is {got} after the job, expected (length, annotation_count, "
                    f"status) = {want}: the job did not update the documents table as specified")
    return None


def starting_rows(documents: list[dict]) -> tuple[list[tuple], list[tuple]]:
    """The annotations and documents rows a fresh database starts with (the pristine tables' rows)."""
    return ([(d["id"], b, e, label) for d in documents for b, e, label in d["annotations"]],
            [(d["id"], len(d["old"]), len(d["annotations"]), "pending") for d in documents])


def pristine_problem(batch: BatchInput, annotations: list[tuple], documents: list[tuple]) -> str | None:
    """Why the pristine tables a process left no longer hold the starting rows, or None: a model
    that rewrote them (to 'aligned', say) would restore a finished job and skip the work."""
    want_annotations, want_documents = starting_rows(batch.documents)
    if sorted(documents) != sorted(want_documents):
        changed = sorted(set(documents) ^ set(want_documents))[:1]
        return (f"pristine_documents changed by the process (e.g. {changed}): "
                f"the starting rows must stay as the harness wrote them")
    if sorted(annotations) != sorted(want_annotations):
        return (f"pristine_annotations changed by the process ({len(annotations)} rows, "
                f"expected {len(want_annotations)}): the starting rows must stay as the harness wrote them")
    return None
