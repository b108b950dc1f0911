"""The batch-job database on a PostgreSQL server: the same tables, recreated fresh per process."""
from __future__ import annotations

from parbench.workloads.batch_job.inputs import (ANNOTATION_ROWS, DOCUMENT_ROWS, PRISTINE_ANNOTATION_ROWS,
                                                PRISTINE_COPY, PRISTINE_DOCUMENT_ROWS, SCHEMA)


def _connect(url: str):
    try:
        import psycopg
    except ImportError:
        raise RuntimeError("PostgreSQL needs psycopg: .venv/bin/pip install 'psycopg[binary]'") from None
    return psycopg.connect(url, connect_timeout=10)


def reset(url: str, documents: list[dict], own_database: bool = False) -> None:
    """The job's tables, made anew. In the job's own database (`own_database`: the role is the
    benchmark's alone, scripts/postgres-up), everything the role made is dropped first and its
    session defaults reset, so that no table, function or setting an earlier process left there
    reaches the next one. The role does not own that database, so it can set nothing of the
    database's own (a comment, a connection limit, its defaults) for this reset to miss. A
    database the user named keeps all but the job's four tables."""
    with _connect(url) as db:
        if own_database:
            db.execute("DROP OWNED BY CURRENT_USER")
            db.execute("ALTER ROLE CURRENT_USER RESET ALL")
        for table in ("annotations", "documents", "pristine_annotations", "pristine_documents"):
            db.execute(f"DROP TABLE IF EXISTS {table}")
        for statement in SCHEMA.split(";"):
            if statement.strip():
                # SQLite's rowid column is PostgreSQL's SERIAL.
                db.execute(statement.replace("(id INTEGER PRIMARY KEY,", "(id SERIAL PRIMARY KEY,"))
        with db.cursor() as cursor:
            cursor.executemany("INSERT INTO documents VALUES (%s, %s, %s, 'pending')",
                               [(d["id"], len(d["old"]), len(d["annotations"])) for d in documents])
            cursor.executemany(
                "INSERT INTO annotations(doc_id, span_begin, span_end, label) VALUES (%s, %s, %s, %s)",
                [(d["id"], b, e, label) for d in documents for b, e, label in d["annotations"]])
            for statement in PRISTINE_COPY:
                cursor.execute(statement)


def tables(url: str) -> tuple[list[tuple], list[tuple]]:
    with _connect(url) as db:
        return db.execute(ANNOTATION_ROWS).fetchall(), db.execute(DOCUMENT_ROWS).fetchall()


def pristine_tables(url: str) -> tuple[list[tuple], list[tuple]]:
    with _connect(url) as db:
        return db.execute(PRISTINE_ANNOTATION_ROWS).fetchall(), db.execute(PRISTINE_DOCUMENT_ROWS).fetchall()
