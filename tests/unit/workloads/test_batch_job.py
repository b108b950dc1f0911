"""batch_job/__init__.py: its database param, its footprint, and a process's fresh database and the
recheck that reads it back."""
import sqlite3

import pytest
from conftest import POSTGRES_URL, fresh_postgres_schema, require_postgres

from parbench.workloads import batch_job
from parbench.workloads.batch_job.oracle import align_annotations
from parbench.workloads.params import ParamError

SMALL = {"docs": 3, "text_length": 60, "annotations": 2}


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PARBENCH_CACHE", str(tmp_path / "inputs"))
    batch_job._batch.cache_clear()
    yield tmp_path / "inputs"
    batch_job._batch.cache_clear()


@pytest.mark.parametrize("value", ["sqlite", "postgres", "postgresql", "postgresql://u:p@h/db", "postgres://h/db"])
def test_the_database_is_sqlite_postgres_or_a_url(value):
    assert batch_job.PARAMS["db"].check("db", value) == value


@pytest.mark.parametrize("value", ["mysql", "", 3, "sqlite:/tmp/x"])
def test_any_other_database_is_refused_with_what_would_do(value):
    with pytest.raises(ParamError, match="wants sqlite, postgres or a postgresql://"):
        batch_job.PARAMS["db"].check("db", value)


def test_the_footprint_counts_disk_and_the_oracles_table_until_the_answer_is_cached(cache):
    disk, memory = batch_job.footprint(SMALL)
    assert disk == 4 * 3 * 60 and memory == 6 * 3 * 60 + 4 * (60 + 15 + 2) ** 2
    batch_job.expected_checksum(SMALL)
    assert batch_job.footprint(SMALL) == (0, 6 * 3 * 60)


def test_each_sqlite_process_gets_a_fresh_copy_and_its_recheck_reads_the_job_back(cache, tmp_path):
    arguments, recheck = batch_job.process_arguments({**SMALL, "db": "sqlite", "kernel": "portable"}, tmp_path)
    db_file = tmp_path / "job.sqlite"
    assert arguments == {"docs_dir": str(cache / "batch3-s2-d3-l60-a2" / "docs"), "db": f"sqlite:{db_file}",
                         "kernel": "portable"}
    assert recheck() is not None                                # nothing done yet: every document pending
    batch = batch_job._input(SMALL)
    db = sqlite3.connect(db_file)
    db.execute("DELETE FROM annotations")
    for d in batch.documents:
        aligned = align_annotations(d["old"].encode(), d["new"].encode(), d["annotations"])
        db.executemany("INSERT INTO annotations(doc_id, span_begin, span_end, label) VALUES (?, ?, ?, ?)",
                       [(d["id"], b, e, label) for b, e, label in aligned])
        db.execute("UPDATE documents SET length = ?, annotation_count = ?, status = 'aligned' WHERE doc_id = ?",
                   (len(d["new"]), len(aligned), d["id"]))
    db.commit()
    db.close()
    assert recheck() is None


def test_the_answer_is_the_inputs_digest_and_the_items_are_the_documents(cache):
    assert batch_job.expected_checksum(SMALL) == batch_job._input(SMALL).expected_checksum
    assert len(batch_job.expected_checksum(SMALL)) == 16 and batch_job.expected_items(SMALL) == 3


def test_a_postgresql_url_gets_its_tables_recreated_and_the_recheck_reads_them(cache, tmp_path):
    url = fresh_postgres_schema("parbench_batch_job_init_test")
    arguments, recheck = batch_job.process_arguments({**SMALL, "db": url}, tmp_path)
    assert arguments["db"] == url and not (tmp_path / "job.sqlite").exists()
    assert recheck() is not None               # the fresh tables: no document aligned yet


def test_db_postgres_is_a_role_of_the_jobs_own_that_cannot_enter_the_stores_database_nor_keep_a_memo(
        cache, tmp_path):
    """Its benchmark is handed the URL, password and all: a store's earlier answers stay out of
    reach, and what one process writes there is gone before the next starts."""
    psycopg = require_postgres()
    arguments, recheck = batch_job.process_arguments({**SMALL, "db": "postgres"}, tmp_path)
    assert arguments["db"] == batch_job.POSTGRES_DEFAULT_URL and recheck() is not None
    job_user = batch_job.POSTGRES_DEFAULT_URL.split("//")[1].split("@")[0]
    store_as_job = POSTGRES_URL.split("?")[0].replace(POSTGRES_URL.split("//")[1].split("@")[0], job_user, 1)
    assert store_as_job != batch_job.POSTGRES_DEFAULT_URL
    with pytest.raises(psycopg.OperationalError, match="permission denied"):
        psycopg.connect(store_as_job, connect_timeout=5).close()
    # What a process leaves in its database, a memo of its answers say, is gone for the next.
    with psycopg.connect(batch_job.POSTGRES_DEFAULT_URL, connect_timeout=5, autocommit=True) as db:
        db.execute("CREATE TABLE public.memo (answer text)")
        db.execute("CREATE FUNCTION public.remembered() RETURNS text LANGUAGE sql AS $$ SELECT 'x' $$")
        db.execute("CREATE VIEW public.answers AS SELECT 42 AS answer")
        db.execute("ALTER ROLE CURRENT_USER SET application_name = 'memo-42'")
        # What DROP OWNED would not reach, the role may not make: it does not own the database.
        for keeps_a_memo in ("CREATE SCHEMA memo", "CREATE TEMPORARY TABLE memo (answer text)",
                             "COMMENT ON DATABASE parbench_job IS 'memo-42'",
                             "ALTER DATABASE parbench_job CONNECTION LIMIT 42",
                             "ALTER DATABASE parbench_job SET application_name = 'memo-42'",
                             "COMMENT ON ROLE parbench_job IS 'memo-42'"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                db.execute(keeps_a_memo)
        db.execute("GRANT CONNECT ON DATABASE parbench_job TO PUBLIC")     # a warning: granted nothing
        assert db.execute("SELECT datacl::text FROM pg_database WHERE datname = 'parbench_job'").fetchone()[0] \
            == "{postgres=CTc/postgres,parbench_job=c/postgres}"
    batch_job.process_arguments({**SMALL, "db": "postgres"}, tmp_path)
    with psycopg.connect(batch_job.POSTGRES_DEFAULT_URL, connect_timeout=5) as db:
        kept = db.execute("SELECT relname FROM pg_class WHERE relname IN ('memo', 'answers') UNION ALL "
                          "SELECT proname FROM pg_proc WHERE proname = 'remembered'").fetchall()
        assert kept == [] and db.execute("SHOW application_name").fetchone()[0] != "memo-42"
    assert recheck() is not None


def test_the_recheck_fails_a_process_that_rewrote_the_pristine_tables(cache, tmp_path):
    """A job that 'restores' from pristine tables it set to aligned skips the work: the recheck
    names the pristine table even when the job's own tables are right."""
    arguments, recheck = batch_job.process_arguments({**SMALL, "db": "sqlite", "kernel": "portable"}, tmp_path)
    db_file = tmp_path / "job.sqlite"
    db = sqlite3.connect(db_file)
    db.execute("UPDATE pristine_documents SET status = 'aligned'")
    db.commit()
    db.close()
    batch = batch_job._input(SMALL)
    assert batch_job.batch_docs.tables_problem(batch, *batch_job.batch_docs.sqlite_tables(db_file)) is not None
    assert "pristine_documents changed" in batch_job.batch_docs.pristine_problem(
        batch, *batch_job.batch_docs.sqlite_pristine_tables(db_file))
