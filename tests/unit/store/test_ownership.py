"""store/ownership.py: parbench's marker, the exact schema of an older store, and what else is
refused before anything is written."""
import os
import sqlite3
import stat

import pytest

from parbench.store import ownership


def _sqlite(path, *statements):
    with sqlite3.connect(path) as db:
        for statement in statements:
            db.execute(statement)
    return path


def test_the_schemas_before_the_marker_are_known_table_by_table():
    assert set(ownership.schema_of(1)) == {"meta", "runs", "cases", "processes", "samples"}
    assert "heartbeat_at" in ownership.schema_of(5)["runs"] and "baselines" in ownership.schema_of(5)


@pytest.mark.parametrize("statements, found", [
    (["CREATE TABLE users(id)"], "it holds the tables users"),
    (["CREATE TABLE meta(schema_version INTEGER)", "CREATE TABLE runs(id)", "INSERT INTO meta VALUES (1)"],
     "no parbench marker"),
    (["PRAGMA application_id = 42", "CREATE TABLE t(x)"], "another program"),
])
def test_a_foreign_sqlite_file_is_refused_from_its_header_or_its_tables(tmp_path, statements, found):
    path = _sqlite(tmp_path / "f.sqlite", *statements)
    before = path.read_bytes()
    with pytest.raises(ownership.NotOurs, match=found):
        ownership.sqlite_file(path, create=True)
    assert path.read_bytes() == before


def test_what_is_not_a_file_or_not_sqlite_is_refused(tmp_path):
    device = tmp_path / "null"
    os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    with pytest.raises(ownership.NotOurs, match="a device"):
        ownership.sqlite_file(device, create=True)
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(ownership.NotOurs, match="not a SQLite file"):
        ownership.sqlite_file(tmp_path / "notes.txt", create=True)
    with pytest.raises(ownership.NotOurs, match="nothing was created"):
        ownership.sqlite_file(tmp_path / "absent.sqlite", create=False)


def test_an_older_parbench_store_with_exactly_its_schema_is_taken(tmp_path):
    from parbench.store.schema import MIGRATIONS
    statements = ["CREATE TABLE meta(schema_version INTEGER NOT NULL)",
                  *[s for step in MIGRATIONS[:5] for s in step], "INSERT INTO meta VALUES (5)"]
    ownership.sqlite_file(_sqlite(tmp_path / "old.sqlite", *statements), create=True)
