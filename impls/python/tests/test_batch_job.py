"""batch-job (workloads/batch-job.md): the LCS offset map, span rules, and agreement of every model on SQLite."""
import json
import os
import random
import sqlite3
import tempfile
import unittest

from parbench_py.digest import order_free_digest
from parbench_py.workloads import batch_job
from tests.helpers import in_process_models, run_model

SCHEMA = """
CREATE TABLE documents(doc_id INTEGER PRIMARY KEY, length INTEGER NOT NULL,
                       annotation_count INTEGER NOT NULL, status TEXT NOT NULL);
CREATE TABLE annotations(id INTEGER PRIMARY KEY, doc_id INTEGER NOT NULL,
                         span_begin INTEGER NOT NULL, span_end INTEGER NOT NULL, label TEXT NOT NULL);
CREATE TABLE pristine_documents(doc_id INTEGER PRIMARY KEY, length INTEGER NOT NULL,
                                annotation_count INTEGER NOT NULL, status TEXT NOT NULL);
CREATE TABLE pristine_annotations(doc_id INTEGER NOT NULL, span_begin INTEGER NOT NULL,
                                  span_end INTEGER NOT NULL, label TEXT NOT NULL);
"""
WORDS = ["alpha", "beam", "core", "delta", "edge", "flow", "graph", "heap", "ractor", "fiber"]


PG_BASE_URL = os.environ.get("PARBENCH_PG_URL", "postgresql://parbench:parbench@127.0.0.1:5432/parbench")
PG_SCHEMA = "parbench_py_test"  # a schema of its own, so other runs on the same server do not interfere


def make_documents(docs: int, seed: int) -> list[tuple[int, str, str, list]]:
    """(doc_id, old, new, spans) for `docs` random documents, with empty and whole-text spans among them."""
    rng = random.Random(seed)
    documents = []
    for doc_id in range(docs):
        words = [rng.choice(WORDS) for _ in range(rng.randint(1, 40))]
        old = " ".join(words)
        new = " ".join(w for w in (rng.choice(WORDS) if rng.random() < 0.1 else w for w in words)
                       if rng.random() > 0.05)
        spans = []
        for _ in range(rng.randint(0, 8)):
            begin = rng.randint(0, len(old))
            spans.append((begin, rng.randint(begin, len(old)), rng.choice(["PERSON", "PLACE"])))
        documents.append((doc_id, old, new, spans))
    return documents


def write_docs_dir(folder: str, documents: list) -> str:
    docs_dir = os.path.join(folder, "docs")
    os.makedirs(docs_dir)
    for doc_id, old, new, _ in documents:
        with open(os.path.join(docs_dir, f"{doc_id}.json"), "w") as file:
            json.dump({"id": doc_id, "old": old, "new": new}, file)
    return docs_dir


def expected_digest(documents: list) -> str:
    rows = [(doc_id, b, e, label) for doc_id, old, new, spans in documents
            for b, e, label in batch_job.align(old.encode(), new.encode(), spans)]
    return order_free_digest(f"{d}:{b}:{e}:{label}".encode() for d, b, e, label in rows)


def fill(database, placeholder: str, documents: list) -> None:
    insert_document = "INSERT INTO documents VALUES (?, ?, ?, 'pending')".replace("?", placeholder)
    insert_span = ("INSERT INTO annotations(doc_id, span_begin, span_end, label) VALUES (?, ?, ?, ?)"
                   .replace("?", placeholder))
    for doc_id, old, _, spans in documents:
        database.execute(insert_document, (doc_id, len(old), len(spans)))
        for b, e, label in spans:
            database.execute(insert_span, (doc_id, b, e, label))
    # The harness's pristine copies of the starting rows (docs/protocol.md, batch-job).
    database.execute("INSERT INTO pristine_documents SELECT doc_id, length, annotation_count, status FROM documents")
    database.execute("INSERT INTO pristine_annotations SELECT doc_id, span_begin, span_end, label FROM annotations")


def make_job(folder: str, docs: int, seed: int) -> tuple[str, str, str]:
    """Docs dir, SQLite URL and the digest expected after alignment, for `docs` random documents."""
    documents = make_documents(docs, seed)
    database = sqlite3.connect(os.path.join(folder, "job.sqlite"))
    database.execute("PRAGMA journal_mode=WAL")
    database.executescript(SCHEMA)
    fill(database, "?", documents)
    database.commit()
    database.close()
    return write_docs_dir(folder, documents), "sqlite:" + os.path.join(folder, "job.sqlite"), expected_digest(documents)


def postgres_or_skip():
    try:
        import psycopg
        return psycopg.connect(PG_BASE_URL, autocommit=True, connect_timeout=3)
    except Exception as error:  # no psycopg, or no server: the SQLite tests still cover the models
        raise unittest.SkipTest(f"PostgreSQL not available: {error}")


class OffsetMap(unittest.TestCase):
    def test_matched_bytes_map_to_their_partner_and_the_end_to_len_new(self):
        self.assertEqual(batch_job.offset_map(b"abc", b"axc"), [0, 2, 2, 3])

    def test_unmatched_offset_takes_the_next_matched_one(self):
        self.assertEqual(batch_job.offset_map(b"abxc", b"ac"), [0, 1, 1, 1, 2])

    def test_tie_steps_i_when_dp_below_is_at_least_dp_right(self):
        # dp[1][0] = dp[0][1] = 1 at (0, 0): the walk steps i, so "b" (not "a") is matched.
        self.assertEqual(batch_job.offset_map(b"ab", b"ba"), [0, 0, 2])

    def test_empty_texts(self):
        self.assertEqual(batch_job.offset_map(b"", b"abc"), [3])
        self.assertEqual(batch_job.offset_map(b"abc", b""), [0, 0, 0, 0])

    def test_identical_texts_map_every_offset_to_itself(self):
        self.assertEqual(batch_job.offset_map(b"hello", b"hello"), [0, 1, 2, 3, 4, 5])


class Align(unittest.TestCase):
    def test_span_becomes_mapped_begin_and_end(self):
        self.assertEqual(batch_job.align(b"abc", b"xabc", [(0, 3, "ORG")]), [(1, 4, "ORG")])

    def test_span_dropped_when_it_collapses(self):
        self.assertEqual(batch_job.align(b"abc", b"axc", [(1, 2, "ORG"), (0, 3, "DATE")]), [(0, 3, "DATE")])


class BatchJobModels(unittest.TestCase):
    def test_every_model_stores_the_expected_annotations(self):
        for seed, docs in ((1, 9), (7, 1), (42, 0)):  # 0 documents: no unit starts
            for model in in_process_models(batch_job.WORKLOAD):
                with self.subTest(seed=seed, docs=docs, model=model):
                    docs_dir, url, expected = make_job(tempfile.mkdtemp(prefix="parbench-py-test-"), docs, seed)
                    items, checksum, extra = run_model(batch_job.WORKLOAD, model, {"docs_dir": docs_dir, "db": url})
                    self.assertEqual((items, checksum), (docs, expected))
                    self.assertIn("cpu_ns", extra)
                    self.assertIn("io_ns", extra)

    def test_every_model_redoes_the_whole_job_in_each_repetition_after_the_reset(self):
        for model in in_process_models(batch_job.WORKLOAD):
            with self.subTest(model=model):
                docs_dir, url, expected = make_job(tempfile.mkdtemp(prefix="parbench-py-test-"), 5, 3)
                params = {"docs_dir": docs_dir, "db": url}
                for repetition in range(3):
                    batch_job.restore_before_repetition(params, repetition)
                    items, checksum, _ = run_model(batch_job.WORKLOAD, model, params)
                    self.assertEqual((repetition, items, checksum), (repetition, 5, expected))
                database = sqlite3.connect(url[len("sqlite:"):])
                pristine = database.execute("SELECT DISTINCT status FROM pristine_documents").fetchall()
                database.close()
                self.assertEqual(pristine, [("pending",)])

    def test_without_the_reset_a_second_repetition_finds_no_work(self):
        docs_dir, url, _ = make_job(tempfile.mkdtemp(prefix="parbench-py-test-"), 4, 9)
        run_model(batch_job.WORKLOAD, "seq", {"docs_dir": docs_dir, "db": url})
        self.assertEqual(run_model(batch_job.WORKLOAD, "seq", {"docs_dir": docs_dir, "db": url})[0], 0)

    def test_parallel_models_report_one_document_per_chunk_and_every_worker(self):
        for model in ("threads", "processes"):
            with self.subTest(model=model):
                docs_dir, url, _ = make_job(tempfile.mkdtemp(prefix="parbench-py-test-"), 6, 11)
                extra = run_model(batch_job.WORKLOAD, model, {"docs_dir": docs_dir, "db": url}, workers=3)[2]
                self.assertEqual((extra["chunk"], extra["chunks"], extra["workers_used"]), (1, 6, 3))
        for model in ("thread-per-doc", "process-per-doc"):   # one unit per document
            with self.subTest(model=model):
                docs_dir, url, _ = make_job(tempfile.mkdtemp(prefix="parbench-py-test-"), 6, 11)
                extra = run_model(batch_job.WORKLOAD, model, {"docs_dir": docs_dir, "db": url})[2]
                self.assertEqual((extra["chunks"], extra["workers_used"]), (6, 6))

    def test_documents_are_marked_aligned_with_new_length_and_count(self):
        docs_dir, url, _ = make_job(tempfile.mkdtemp(prefix="parbench-py-test-"), 3, 5)
        run_model(batch_job.WORKLOAD, "seq", {"docs_dir": docs_dir, "db": url})
        database = sqlite3.connect(url[len("sqlite:"):])
        for doc_id, length, count, status in database.execute("SELECT * FROM documents"):
            with open(os.path.join(docs_dir, f"{doc_id}.json")) as file:
                self.assertEqual(length, len(json.load(file)["new"]))
            stored = database.execute("SELECT count(*) FROM annotations WHERE doc_id = ?", (doc_id,)).fetchone()[0]
            self.assertEqual((count, status), (stored, "aligned"))


class BatchJobModelsOnPostgres(unittest.TestCase):
    def test_every_model_stores_the_expected_annotations(self):
        server = postgres_or_skip()
        documents = make_documents(7, 3)
        docs_dir = write_docs_dir(tempfile.mkdtemp(prefix="parbench-py-test-"), documents)
        url = f"{PG_BASE_URL}?options=-csearch_path%3D{PG_SCHEMA}"
        with server:
            for model in in_process_models(batch_job.WORKLOAD):
                with self.subTest(model=model):
                    server.execute(f"DROP SCHEMA IF EXISTS {PG_SCHEMA} CASCADE")
                    server.execute(f"CREATE SCHEMA {PG_SCHEMA}")
                    server.execute(f"SET search_path TO {PG_SCHEMA}")
                    for statement in SCHEMA.replace("id INTEGER PRIMARY KEY,", "id SERIAL PRIMARY KEY,").split(";"):
                        if statement.strip():
                            server.execute(statement)
                    fill(server, "%s", documents)
                    items, checksum, extra = run_model(batch_job.WORKLOAD, model, {"docs_dir": docs_dir, "db": url})
                    self.assertEqual((items, checksum, extra["db"]), (7, expected_digest(documents), "postgresql"))
            server.execute(f"DROP SCHEMA IF EXISTS {PG_SCHEMA} CASCADE")


if __name__ == "__main__":
    unittest.main()
