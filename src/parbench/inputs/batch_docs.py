"""The batch-job inputs: document files and the prepared database they are aligned against."""
from __future__ import annotations

import json
import random
import shutil
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from parbench import oracle
from parbench.inputs import InputError, cache_root, publish_atomically

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
"""


@dataclass(frozen=True)
class BatchInput:
    docs_dir: Path
    template_db: Path        # SQLite file every run starts from (copied, never written)
    expected_checksum: str   # oracle digest of the annotations after a correct run
    documents: list[dict]    # id, old, new, annotations: what a PostgreSQL run is seeded with


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
    db.commit()
    db.close()


def expected_digest(documents: list[dict]) -> str:
    rows = []
    for d in documents:
        aligned = oracle.align_annotations(d["old"].encode(), d["new"].encode(), d["annotations"])
        rows.extend((d["id"], b, e, label) for b, e, label in aligned)
    return oracle.annotation_rows_digest(rows)


def ensure(docs: int, text_length: int, annotations: int, seed: int = 2) -> BatchInput:
    folder = cache_root() / f"batch-s{seed}-d{docs}-l{text_length}-a{annotations}"
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
    return BatchInput(folder / "docs", folder / "template.sqlite",
                      (folder / "expected.txt").read_text().strip(), documents)


def _write(tmp: Path, documents: list[dict]) -> None:
    (tmp / "docs").mkdir(parents=True)
    for d in documents:
        (tmp / "docs" / f"{d['id']}.json").write_text(
            json.dumps({"id": d["id"], "old": d["old"], "new": d["new"]}))
    write_sqlite(tmp / "template.sqlite", documents)
    (tmp / "expected.txt").write_text(expected_digest(documents) + "\n")


def fresh_sqlite_copy(batch: BatchInput, destination: Path) -> Path:
    """A writable copy of the template: the job rewrites annotations, so each process gets its own."""
    shutil.copyfile(batch.template_db, destination)
    return destination


def sqlite_annotations_digest(path: Path) -> str:
    db = sqlite3.connect(path)
    try:
        rows = db.execute("SELECT doc_id, span_begin, span_end, label FROM annotations").fetchall()
    finally:
        db.close()
    return oracle.annotation_rows_digest(rows)
