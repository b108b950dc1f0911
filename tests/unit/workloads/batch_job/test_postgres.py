"""batch_job/postgres.py: the batch-job tables on a real PostgreSQL server, recreated fresh for each
process and read back as the SQLite ones are."""
from conftest import fresh_postgres_schema, require_postgres

from parbench.workloads.batch_job import inputs, postgres
from parbench.workloads.batch_job.oracle import annotation_rows_digest

DOCUMENTS = inputs.make_documents(3, 80, 2, seed=2)


def test_reset_seeds_the_documents_as_pending_with_their_annotations():
    url = fresh_postgres_schema("parbench_batch_job_test")
    postgres.reset(url, DOCUMENTS)
    annotations, documents = postgres.tables(url)
    assert sorted(documents) == [(d["id"], len(d["old"]), len(d["annotations"]), "pending") for d in DOCUMENTS]
    expected = [(d["id"], b, e, label) for d in DOCUMENTS for b, e, label in d["annotations"]]
    assert annotation_rows_digest(annotations) == annotation_rows_digest(expected)


def test_a_second_reset_starts_from_fresh_tables_whatever_the_last_process_left():
    url = fresh_postgres_schema("parbench_batch_job_test")
    postgres.reset(url, DOCUMENTS)
    with require_postgres().connect(url) as db:
        db.execute("UPDATE documents SET status = 'aligned'")
        db.execute("INSERT INTO annotations(doc_id, span_begin, span_end, label) VALUES (99, 0, 1, 'X')")
    postgres.reset(url, DOCUMENTS[:1])
    annotations, documents = postgres.tables(url)
    assert [row[3] for row in documents] == ["pending"] and {row[0] for row in annotations} == {0}


def test_the_same_tables_are_read_as_the_sqlite_template_holds_them(tmp_path):
    url = fresh_postgres_schema("parbench_batch_job_test")
    postgres.reset(url, DOCUMENTS)
    inputs.write_sqlite(tmp_path / "t.sqlite", DOCUMENTS)
    on_postgres, on_sqlite = postgres.tables(url), inputs.sqlite_tables(tmp_path / "t.sqlite")
    assert sorted(on_postgres[1]) == sorted(on_sqlite[1])
    assert annotation_rows_digest(on_postgres[0]) == annotation_rows_digest(on_sqlite[0])


def test_reset_writes_the_pristine_tables_with_the_starting_rows(tmp_path):
    url = fresh_postgres_schema("parbench_batch_job_test")
    postgres.reset(url, DOCUMENTS)
    annotations, documents = postgres.pristine_tables(url)
    want_annotations, want_documents = inputs.starting_rows(DOCUMENTS)
    assert sorted(documents) == sorted(want_documents) and sorted(annotations) == sorted(want_annotations)
