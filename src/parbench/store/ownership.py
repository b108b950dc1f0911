"""Whether a database is parbench's own store, decided before anything is written to it.

A store parbench makes carries a marker no other program writes: in SQLite its header's
application_id (APPLICATION_ID, "pbch"), read through an `immutable` connection that writes
nothing; in PostgreSQL the table `parbench_store` with its one MARKER row. A store of an older
parbench (schema 1 to 5, made before the marker) is taken only when its tables and their columns
are exactly that schema's; it is marked when it is next migrated. Everything else is refused
with a line naming what was found, and left as it was.
"""
from __future__ import annotations

import functools
import os
import sqlite3
import stat
import urllib.parse
from pathlib import Path
from typing import Callable

from parbench.store.schema import MIGRATIONS

APPLICATION_ID = int.from_bytes(b"pbch", "big")      # SQLite's header field for the file's program
MARKER = "parbench results store"
MARKER_TABLE = "parbench_store"
MARKED_FROM = 6                  # the first schema version whose stores carry the marker

Query = Callable[[str], list]    # SQL → its rows


class NotOurs(RuntimeError):
    """What was found where a store was expected, in one line."""


def sqlite_file(path: Path, create: bool) -> None:
    """What is at the path, and (read without writing anything) the file's header and tables:
    NotOurs for anything that is not an empty database, parbench's store or an older one of it."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if not create:
            raise NotOurs(f"no results store at {path}; nothing was created there") from None
        return
    if not stat.S_ISREG(mode):
        what = "a folder" if stat.S_ISDIR(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) \
            else "a FIFO" if stat.S_ISFIFO(mode) else "not a regular file"
        raise NotOurs(f"--db {path} is {what}: a SQLite store is a regular file")
    foreign = f"{path} is not a parbench results database"
    # Read through SQLite, never with open(): closing a file descriptor of the store would drop the
    # POSIX locks of every connection this process holds on it, and the next parbench to close
    # its own would take itself for the last one and delete the -wal and -shm under them.
    # `immutable`: no lock, no journal, nothing written.
    peek = sqlite3.connect(f"file:{urllib.parse.quote(str(path))}?immutable=1", uri=True)
    try:
        application = peek.execute("PRAGMA application_id").fetchone()[0]
        if application == APPLICATION_ID:
            return
        if application:
            raise NotOurs(f"{foreign}: its header names another program (application_id 0x{application:08x}); "
                          "parbench leaves it alone")
        version(lambda sql: peek.execute(sql).fetchall(), False, str(path), marked=False)
    except sqlite3.DatabaseError as error:
        if getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_NOTADB:
            raise NotOurs(f"{foreign}: it is not a SQLite file; parbench leaves it alone") from None
        # a file damaged inside: the store's own reading says how, in one line
    finally:
        peek.close()


def _tables(query: Query, is_postgres: bool) -> list[str]:
    sql = ("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
           if is_postgres else "SELECT name FROM sqlite_master WHERE type = 'table'")
    return sorted(str(name) for (name,) in query(sql))


def _columns(query: Query, is_postgres: bool, table: str) -> frozenset[str]:
    if is_postgres:
        rows = query("SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
                     f"AND table_name = '{table}'")
        return frozenset(str(name) for (name,) in rows)
    return frozenset(str(row[1]) for row in query(f"PRAGMA table_info('{table}')"))


@functools.lru_cache(maxsize=None)
def schema_of(version: int) -> dict[str, frozenset[str]]:
    """The tables and columns that parbench's migrations 1…version make."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE meta(schema_version INTEGER NOT NULL)")
    for statements in MIGRATIONS[:version]:
        for statement in statements:
            db.execute(statement)
    query = lambda sql: db.execute(sql).fetchall()
    return {table: _columns(query, False, table) for table in _tables(query, False)}


def version(query: Query, is_postgres: bool, shown: str, marked: bool | None = None) -> int:
    """The schema version of parbench's own store, 0 for an empty database; NotOurs naming what
    was found in any other. `marked` is the caller's reading of the marker (SQLite's header),
    None to look for the marker table."""
    tables = _tables(query, is_postgres)
    if not tables:
        return 0
    foreign = f"{shown} is not a parbench results database"
    found = ", ".join(tables[:6]) + (" …" if len(tables) > 6 else "")
    if "meta" not in tables or "runs" not in tables:
        raise NotOurs(f"{foreign}: it holds the tables {found}; parbench leaves it alone "
                      "(give --db a new file or an empty database)")
    try:
        rows = query("SELECT schema_version FROM meta")
    except Exception:    # noqa: BLE001 — a `meta` table of another program's
        raise NotOurs(f"{foreign}: its meta table has no schema_version (tables: {found})") from None
    if len(rows) != 1 or type(rows[0][0]) is not int or rows[0][0] < 1:
        raise NotOurs(f"{foreign}: its meta.schema_version is {repr([row[0] for row in rows])[:60]}, "
                      "not one parbench wrote")
    number = rows[0][0]
    if marked is None:
        marked = MARKER_TABLE in tables and [tuple(r) for r in query(f"SELECT marker FROM {MARKER_TABLE}")] == [(MARKER,)]
    if marked:
        return number
    expected = schema_of(number) if number < MARKED_FROM else None
    actual = {table: _columns(query, is_postgres, table) for table in tables}
    if expected != actual:
        raise NotOurs(f"{foreign}: it has no parbench marker, and its tables ({found}) are not those of a "
                      f"parbench store of schema {number}; parbench leaves it alone")
    return number


def half_made(query: Query, application_id: int) -> list[str]:
    """The tables of a SQLite store parbench marked and began but did not finish (an older
    parbench created it table by table, and a full disk stopped it): a `meta` with no version
    and every table empty. [] for anything else, which `version` judges."""
    tables = _tables(query, False)
    if application_id != APPLICATION_ID or "meta" not in tables or query("SELECT 1 FROM meta LIMIT 1"):
        return []
    if any(query(f'SELECT 1 FROM "{table}" LIMIT 1') for table in tables):
        return []
    return tables
