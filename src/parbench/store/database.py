"""Reads and writes runs in SQLite (the default file) or PostgreSQL (a URL), one schema for both.

Every process is committed as soon as it is measured, so a Ctrl-C, a kill -9 or a lost server
costs at most the process in flight (SQLite's commits are cheap appends to its write-ahead log:
`_connect_sqlite` says why that is durable enough). A running run records its owner (host, boot, PID namespace,
pid and the pid's start time) and the owner's heartbeat, which both lock it against a second
`--resume` and let the next start find a run whose harness died (liveness.py).
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
import time
import urllib.parse
from pathlib import Path
from typing import Any

from parbench.records import (Analysis, Case, CaseResult, CaseRun, ProcessMeasurement, Repetition,
                              RunRecord)
from parbench.store import ownership, shared_memory
from parbench.store.schema import MIGRATIONS, SCHEMA_VERSION


class StoreError(RuntimeError):
    pass


class StoreTurnedReadOnly(StoreError):
    """A store made read-only underneath a run (`chattr +i`): waiting does not undo it."""


POSTGRES_SCHEMES = ("postgresql://", "postgres://")
SQLITE_SCHEME = "sqlite://"


# The `password=` parameter first: its value may hold an `@`, which would otherwise end the
# user's password (taken up to the last `@`) inside the query, leaving the host part of it shown.
_PASSWORDS = (re.compile(r"(?i)([?&]password=)([^&]*)()"), re.compile(r"(://[^:/@]*:)(.*)(@)"))


def redact(target: str, mask: str | None = None) -> str:
    """A URL without its password, for messages: the one after `user:` (up to the last `@`, as a
    password may hold `/` or `@`) and a `password=` parameter, each shown as `***`; with `mask`
    (one character), each of the password's characters becomes it, so the text keeps its length
    (a command line rewritten in place)."""
    for pattern in _PASSWORDS:
        target = pattern.sub(lambda m: m[1] + ("***" if mask is None else mask * len(m[2])) + m[3], target)
    return target


def secrets_in(target: str) -> list[str]:
    """The passwords a target holds, as written and as decoded (a driver's message may quote
    either: libpq quotes a password whose %-escape is malformed), longest first."""
    written = set()
    for pattern in _PASSWORDS:            # in redact's order, each found in what the one before left
        written |= {m[2] for m in pattern.finditer(target) if m[2]}
        target = pattern.sub(lambda m: m[1] + "***" + m[3], target)
    return sorted(written | {urllib.parse.unquote(w) for w in written}, key=len, reverse=True)


# A driver may quote any piece of a password it parsed otherwise (libpq ends it at the first
# `@`, where redact takes the last): every run of this many of its characters, or all of a
# shorter one, is masked.
SECRET_PIECE = 3


def _masked_pieces(text: str, secret: str) -> str:
    least, out, i = min(len(secret), SECRET_PIECE), [], 0
    while i < len(text):
        end = i
        while end < len(text) and text[i:end + 1] in secret:
            end += 1
        if end - i >= least:
            out.append("***")
            i = end
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def without_secrets(text: str, target: str) -> str:
    """A message about `target` (a driver's own words included) with no piece of its password in it."""
    for secret in secrets_in(target):
        text = _masked_pieces(text, secret)
    return redact(text)


def sqlite_path(target: str) -> Path | None:
    """The file of a SQLite target (a plain path or sqlite:///path), None for PostgreSQL; a
    StoreError for any other scheme, so a typo never becomes a stray local file."""
    if target.startswith(POSTGRES_SCHEMES):
        return None
    if target.startswith(SQLITE_SCHEME):
        return Path(target[len(SQLITE_SCHEME):])
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", target):
        raise StoreError(f"--db {redact(target)}: not a store parbench knows; use postgresql://USER:PASS@HOST/DB, "
                         "sqlite:///path/file.sqlite or a file path")
    return Path(target)


def open_store(target: str | Path, create: bool = True, read_only: bool = False) -> "Store":
    """The store at `target`, refused (StoreError) before anything is written when it is not
    parbench's own or an empty database (store/ownership.py); with create=False a SQLite file
    that is not there is refused too, and nothing is made. A reader (read_only=True: advise)
    writes nothing at all, even where it could: a SQLite store is opened read-only, and one of an
    older schema is migrated in a copy in memory, so another machine's store is never changed by
    being read."""
    target = str(target)
    path = sqlite_path(target)
    if path is None:
        return Store(target, _connect_postgres(target), placeholder="%s", serial="SERIAL")
    if read_only:
        if not path.is_file():
            raise StoreError(f"no results database at {path}")
        try:
            return Store(target, _connect_sqlite_read_only(path), placeholder="?", serial="INTEGER",
                         read_only=True)
        except ownership.NotOurs as error:
            raise StoreError(str(error)) from None
        except sqlite3.Error as error:
            raise StoreError(f"cannot read the results database {path}: {error}") from None
    try:
        ownership.sqlite_file(path, create)
    except ownership.NotOurs as error:
        raise StoreError(str(error)) from None
    except OSError as error:
        raise StoreError(f"cannot open the results database {path}: {error.strerror or error}") from None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return Store(target, _connect_sqlite(path), placeholder="?", serial="INTEGER")
    except (OSError, sqlite3.Error) as error:
        raise StoreError(f"cannot open the results database {path}: {getattr(error, 'strerror', None) or error}") from None


def _connect_sqlite(path: Path) -> sqlite3.Connection:
    """A SQLite store whose commits cost little: in WAL mode with synchronous=NORMAL a commit
    appends to the log and does not wait for the disk (0.01 ms against 2–9 ms of the rollback
    journal's fsyncs, per stored process). That keeps the durability promise, which is about
    parbench dying: a commit has reached the kernel when it returns, so a crash or a kill -9
    loses nothing committed; only the machine losing power could lose the last commits, and WAL
    never leaves the file corrupt for it. A store on read-only media (no -shm file can be made
    beside it, which WAL needs even to read) is opened as immutable, read-only. A new store gets
    its marker before WAL mode, so that the marker is in the file's own header from the start."""
    if path.exists() and not os.access(path.parent, os.W_OK):
        return _connect_sqlite_read_only(path)
    db = sqlite3.connect(path, timeout=30)
    try:
        if not db.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchone():
            db.execute(f"PRAGMA application_id = {ownership.APPLICATION_ID}")
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
    except sqlite3.OperationalError:      # a file it may not write: read as it is
        pass
    return db


def _connect_sqlite_read_only(path: Path) -> sqlite3.Connection:
    """`path` opened so that nothing is written to it or beside it. With no write-ahead log
    beside it, no writer is at work: it is opened immutable (no locks, no -shm file made). With
    one, a writer may be: read-only, through the log, which makes SQLite's -shm file if needed."""
    quoted = urllib.parse.quote(str(path))
    if Path(f"{path}-wal").exists() and os.access(path.parent, os.W_OK):
        return sqlite3.connect(f"file:{quoted}?mode=ro", uri=True, timeout=30)
    return sqlite3.connect(f"file:{quoted}?immutable=1", uri=True, timeout=30)


def _connect_postgres(target: str):
    try:
        import psycopg
    except ImportError:
        raise StoreError("a PostgreSQL store needs psycopg: .venv/bin/pip install 'psycopg[binary]'") from None
    try:
        return psycopg.connect(target, autocommit=False, connect_timeout=10)
    except psycopg.Error as error:
        said = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise StoreError(f"cannot open {redact(target)}: {without_secrets(said, target)}") from None


class _Rows:
    """A statement's rows, all read, with the cursor's way of handing them out."""

    def __init__(self, rows: list, rowcount: int):
        self.rows, self.rowcount = rows, rowcount

    def fetchone(self):
        return self.rows[0] if self.rows else None

    def fetchall(self) -> list:
        return self.rows

    def __iter__(self):
        return iter(self.rows)


def _damaged(path: Path) -> str:
    """One line on a SQLite file damaged inside: SQLite's own verdict, and what still reads."""
    try:
        peek = sqlite3.connect(f"file:{urllib.parse.quote(str(path))}?immutable=1", uri=True)
    except sqlite3.Error as error:
        return f"the results database {path} cannot be read: {error}"
    try:
        try:
            verdict = "; ".join(row[0] for row in peek.execute("PRAGMA integrity_check").fetchall()[:3])
        except sqlite3.DatabaseError as error:
            verdict = f"it cannot even be checked ({error})"
        try:
            runs = peek.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
            works = f"`parbench history` still lists its {runs} runs"
        except sqlite3.DatabaseError:
            works = "parbench can read none of it"
    finally:
        peek.close()
    return (f"the results database {path} is damaged (PRAGMA integrity_check: {verdict[:300]}); {works}; "
            f"`sqlite3 {path} .recover | sqlite3 NEW.sqlite` saves what can be read")


def clean_text(value: Any) -> Any:
    """PostgreSQL's text holds no NUL; a benchmark's stderr may. Nothing else is changed."""
    return value.replace("\x00", "\\0") if isinstance(value, str) else value


class Store:
    def __init__(self, target: str, connection, placeholder: str, serial: str, read_only: bool = False):
        self.target, self.db, self.placeholder, self.serial = target, connection, placeholder, serial
        path = sqlite_path(target) if placeholder == "?" else None
        self._wal_index = shared_memory.wal_index(str(path)) if path is not None else None
        if read_only and self._owned_version() < SCHEMA_VERSION:
            self.db = self._copy_in_memory()
        self._migrate()

    def _copy_in_memory(self) -> sqlite3.Connection:
        """The store read into memory, so that its migration changes the copy and not the file."""
        copy = sqlite3.connect(":memory:")
        self.db.backup(copy)
        self.db.close()
        return copy

    @property
    def is_postgres(self) -> bool:
        return self.placeholder == "%s"

    def reconnect(self) -> None:
        """A fresh connection to the same target (after a lost PostgreSQL server, say)."""
        try:
            self.db.close()
        except Exception:      # noqa: BLE001 — a broken connection may fail to close in any way
            pass
        self.db = (_connect_postgres(self.target) if self.is_postgres
                   else _connect_sqlite(sqlite_path(self.target)))

    # --- plumbing ---------------------------------------------------------------------------
    def _sql(self, text: str) -> str:
        return text.replace("?", self.placeholder)

    def _execute(self, text: str, args: tuple = ()) -> "_Rows":
        """The statement run and its rows read at once, so that a damaged file shows itself here,
        as one StoreError naming the file and what still works (`_damaged`), never mid-report."""
        self._refuse_a_read_only_wal_index()
        try:
            cursor = self.db.cursor()
            cursor.execute(self._sql(text), tuple(clean_text(a) for a in args))
            return _Rows(cursor.fetchall() if cursor.description else [], cursor.rowcount)
        except sqlite3.DatabaseError as error:
            if getattr(error, "sqlite_errorcode", None) in (sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB):
                raise StoreError(_damaged(sqlite_path(self.target))) from None
            raise

    def _refuse_a_read_only_wal_index(self) -> None:
        """SQLite writes its -shm file through a shared mapping at every statement: one made
        immutable underneath the run would be SIGBUS. Found first, the mappings are made private
        (shared_memory.py: even closing the store then writes only memory), and this store
        takes nothing more: a StoreError, which the sink answers as a lost store (the journal)."""
        if self._wal_index is None or not (flag := shared_memory.read_only_flag(self._wal_index)):
            return
        shared_memory.privatize(self._wal_index)
        raise StoreTurnedReadOnly(f"{self._wal_index}, SQLite's index of the store's log, turned {flag} underneath "
                         "this run: SQLite writes it through memory, so the store takes nothing more")

    def _insert(self, table: str, row: dict[str, Any]) -> int:
        columns = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        returning = table in ("runs", "cases")
        cursor = self._execute(f"INSERT INTO {table}({columns}) VALUES ({marks})"
                               + (" RETURNING id" if returning else ""), tuple(row.values()))
        return cursor.fetchone()[0] if returning else 0

    def _commit(self, work) -> Any:
        """Runs work() as one transaction: all of it is stored, or none of it."""
        try:
            result = work()
            self._refuse_a_read_only_wal_index()
            self.db.commit()
            return result
        except BaseException:
            try:
                self.db.rollback()
            except Exception:  # noqa: BLE001 — the connection may be gone; the caller retries
                pass
            raise

    def _migrate(self) -> None:
        """Brings parbench's own store to this schema (and marks an older one as parbench's);
        writes nothing when it already is (so a read-only store is read), and refuses any
        database that is not empty and not parbench's."""
        def migrate():
            if not self.is_postgres:
                if self._is_current():
                    return
                # SQLite commits each CREATE TABLE on its own unless a transaction is open: the
                # whole schema is one transaction, taken with the write lock before it is read
                # again, so a second parbench creating the same store waits and then finds it
                # whole, and a full disk leaves it as empty as it was (postgres's DDL is
                # transactional already).
                self._execute("BEGIN IMMEDIATE")
                self._drop_half_made()
            version = self._owned_version()
            if version > SCHEMA_VERSION:
                raise StoreError(f"this results database has schema {version}, newer than this "
                                 f"parbench understands ({SCHEMA_VERSION}); upgrade parbench")
            if version == SCHEMA_VERSION:
                return
            if version == 0:
                self._execute("CREATE TABLE meta(schema_version INTEGER NOT NULL)")
            for statements in MIGRATIONS[version:]:
                for statement in statements:
                    self._execute(statement.replace("INTEGER PRIMARY KEY", f"{self.serial} PRIMARY KEY"))
            if not self.is_postgres:
                self._execute(f"PRAGMA application_id = {ownership.APPLICATION_ID}")
            if version == 0:
                self._execute("INSERT INTO meta(schema_version) VALUES (?)", (SCHEMA_VERSION,))
            else:
                self._execute("UPDATE meta SET schema_version = ?", (SCHEMA_VERSION,))
        try:
            self._commit(migrate)
        except StoreError:
            raise
        except ownership.NotOurs as error:
            raise StoreError(str(error)) from None
        except Exception as error:      # noqa: BLE001 — sqlite3's and psycopg's errors alike
            if self._read_only_before_the_marker(error):
                return
            said = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise StoreError(f"cannot use the results database {redact(self.target)}: "
                             f"{without_secrets(said, self.target)}") from None

    def _is_current(self) -> bool:
        """Whether the store is of this schema already, read without taking the write lock (so
        a store on read-only media is read as it is)."""
        try:
            version = self._owned_version()
        except ownership.NotOurs:
            return False
        if version > SCHEMA_VERSION:
            raise StoreError(f"this results database has schema {version}, newer than this "
                             f"parbench understands ({SCHEMA_VERSION}); upgrade parbench")
        return version == SCHEMA_VERSION

    def _drop_half_made(self) -> None:
        """A store an older parbench began on a disk that filled (its meta table made, empty,
        and nothing else in it) is begun again instead of refused ever after."""
        query = lambda sql: self._execute(sql).fetchall()
        for table in ownership.half_made(query, self._execute("PRAGMA application_id").fetchone()[0]):
            self._execute(f'DROP TABLE "{table}"')

    def _read_only_before_the_marker(self, error: Exception) -> bool:
        """A store of the last unmarked schema on read-only media: its migration would only add
        the marker, so it is read as it is (its next writer marks it)."""
        if "readonly" not in str(error).lower().replace("-", "").replace(" ", ""):
            return False
        try:
            return self._owned_version() == ownership.MARKED_FROM - 1
        except Exception:   # noqa: BLE001
            return False

    def _owned_version(self) -> int:
        """The schema version of parbench's own store, 0 for an empty database; NotOurs naming
        what was found in any other (store/ownership.py)."""
        marked = None
        if not self.is_postgres:
            marked = self._execute("PRAGMA application_id").fetchone()[0] == ownership.APPLICATION_ID
        return ownership.version(lambda sql: self._execute(sql).fetchall(), self.is_postgres,
                                 redact(self.target), marked)

    def close(self) -> None:
        try:
            self._refuse_a_read_only_wal_index()      # closing checkpoints, through the -shm file too
        except StoreError:
            pass
        self.db.close()

    # --- runs -------------------------------------------------------------------------------
    def begin_run(self, record: RunRecord, owner: str = "") -> int:
        record.id = self._commit(lambda: self._insert("runs", {
            "kind": record.kind, "started_at": record.started_at, "finished_at": None,
            "status": record.status, "scale": record.scale,
            "options_json": json.dumps(record.options), "machine_json": json.dumps(record.machine),
            "runtimes_json": json.dumps(record.runtimes), "owner": owner, "heartbeat_at": time.time()}))
        return record.id

    def claim_run(self, run_id: int, owner: str, previous_owner: str) -> bool:
        """Takes a run over for a resume, only if nobody else took it since it was read:
        an atomic compare-and-set on its owner, the same on SQLite and PostgreSQL."""
        def claim():
            return self._execute("UPDATE runs SET owner = ?, status = 'running', heartbeat_at = ? "
                                 "WHERE id = ? AND owner = ?", (owner, time.time(), run_id, previous_owner)).rowcount
        return self._commit(claim) == 1

    def beat(self, run_id: int, owner: str) -> None:
        """The owner is still measuring this run (liveness.HEARTBEAT_S apart)."""
        self._commit(lambda: self._execute("UPDATE runs SET heartbeat_at = ? WHERE id = ? AND owner = ?",
                                           (time.time(), run_id, owner)))

    def finish_run(self, run_id: int, status: str, finished_at: str) -> None:
        self._commit(lambda: self._execute("UPDATE runs SET status = ?, finished_at = ?, owner = '' WHERE id = ?",
                                           (status, finished_at, run_id)))

    def running_runs(self) -> list[tuple[int, str, float]]:
        """(id, owner, seconds since its owner's last heartbeat) of every run still marked running."""
        return [(row[0], row[1], time.time() - float(row[2] or 0)) for row in self._execute(
            "SELECT id, owner, heartbeat_at FROM runs WHERE status = 'running' ORDER BY id").fetchall()]

    def run_kind(self, run_id: int) -> str:
        row = self._execute("SELECT kind FROM runs WHERE id = ?", (run_id,)).fetchone()
        return row[0] if row else "suite"

    def heartbeat_age(self, run_id: int) -> float:
        row = self._execute("SELECT heartbeat_at FROM runs WHERE id = ?", (run_id,)).fetchone()
        return time.time() - float(row[0] or 0) if row else float("inf")

    def find_run(self, record: RunRecord) -> int | None:
        """The run that began at that moment on that machine with those options (a journal's run
        loaded before, or the run the journal was kept for)."""
        for run_id, machine, options in self._execute(
                "SELECT id, machine_json, options_json FROM runs WHERE started_at = ? AND kind = ? ORDER BY id",
                (record.started_at, record.kind)).fetchall():
            if (json.loads(machine or "{}").get("hostname") == record.machine.get("hostname")
                    and json.loads(options or "{}") == json.loads(json.dumps(record.options))):
                return run_id
        return None

    def run_owner(self, run_id: int) -> str:
        row = self._execute("SELECT owner FROM runs WHERE id = ?", (run_id,)).fetchone()
        return row[0] if row else ""

    # --- cases, written process by process ----------------------------------------------------
    def begin_case(self, run_id: int, result: CaseRun) -> int:
        return self._commit(lambda: self._insert_case(run_id, result, status="running"))

    def add_process(self, case_id: int, measurement: ProcessMeasurement, repetitions: list[Repetition]) -> None:
        self._commit(lambda: self._insert_process(case_id, measurement, repetitions))

    def finish_case(self, case_id: int, result: CaseRun) -> None:
        self._commit(lambda: self._execute(
            "UPDATE cases SET status = ?, reason = ?, flags_json = ?, expected_checksum = ? WHERE id = ?",
            (result.status, result.reason, json.dumps(result.flags), result.expected_checksum, case_id)))

    def add_case(self, run_id: int, result: CaseRun) -> int:
        """One whole case with all its processes and samples, in one transaction."""
        return self._commit(lambda: self._write_whole_case(run_id, result))

    def replace_case(self, run_id: int, result: CaseRun) -> int:
        """The case as measured, replacing any partial rows of it (a retry after a lost server)."""
        def replace():
            self._delete_cases("run_id = ? AND case_key = ?", (run_id, result.case.key))
            return self._write_whole_case(run_id, result)
        return self._commit(replace)

    def delete_unfinished_cases(self, run_id: int) -> int:
        """Cases cut short by an interruption: a resume measures them again from the start."""
        return self._commit(lambda: self._delete_cases("run_id = ? AND status IN ('running', 'interrupted')",
                                                       (run_id,)))

    def _write_whole_case(self, run_id: int, result: CaseRun) -> int:
        case_id = self._insert_case(run_id, result, result.status)
        by_process: dict[int, list[Repetition]] = {}
        for rep in result.repetitions:
            by_process.setdefault(rep.process, []).append(rep)
        for p in result.processes:
            self._insert_process(case_id, p, by_process.pop(p.index, []))
        for reps in by_process.values():
            self._insert_samples(case_id, reps)
        return case_id

    def _delete_cases(self, where: str, args: tuple) -> int:
        ids = [row[0] for row in self._execute(f"SELECT id FROM cases WHERE {where}", args).fetchall()]
        for case_id in ids:
            for table in ("samples", "processes"):
                self._execute(f"DELETE FROM {table} WHERE case_id = ?", (case_id,))
            self._execute("DELETE FROM cases WHERE id = ?", (case_id,))
        return len(ids)

    def _insert_case(self, run_id: int, result: CaseRun, status: str) -> int:
        c = result.case
        return self._insert("cases", {
            "run_id": run_id, "case_key": c.key, "workload": c.workload, "runtime": c.runtime,
            "model": c.model, "family": c.family, "params_json": json.dumps(c.params),
            "workers": c.workers, "overrides_json": json.dumps(list(c.overrides)), "note": c.note,
            "expected_checksum": result.expected_checksum, "status": status,
            "reason": result.reason, "flags_json": json.dumps(result.flags)})

    def _insert_process(self, case_id: int, p: ProcessMeasurement, repetitions: list[Repetition]) -> None:
        self._insert("processes", {
            "case_id": case_id, "idx": p.index, "wall_ns": p.wall_ns, "user_ns": p.user_ns,
            "sys_ns": p.sys_ns, "max_rss_kb": p.max_rss_kb,
            "voluntary_switches": p.voluntary_switches,
            "involuntary_switches": p.involuntary_switches, "exit_code": p.exit_code,
            "outcome": p.outcome, "detail": p.detail, "stderr_tail": p.stderr_tail,
            "tree_peak_rss_kb": p.tree_peak_rss_kb, "memory_json": json.dumps(p.memory), "seq": p.sequence})
        self._insert_samples(case_id, repetitions)

    def _insert_samples(self, case_id: int, repetitions: list[Repetition]) -> None:
        for r in repetitions:
            self._insert("samples", {
                "case_id": case_id, "process_idx": r.process, "rep": r.rep, "ns": r.ns,
                "items": r.items, "checksum": r.checksum, "verified": int(r.verified),
                "extra_json": json.dumps(r.extra)})

    def add_analysis(self, run_id: int, name: str, subject: str, result: dict) -> None:
        self._commit(lambda: self._insert("analyses", {"run_id": run_id, "kind": name, "subject": subject,
                                                       "result_json": json.dumps(result)}))

    def save_baseline(self, name: str, run_id: int, saved_at: str) -> None:
        """NAME now points at run_id (a name saved again moves to the newer run)."""
        def save():
            self._execute("DELETE FROM baselines WHERE name = ?", (name,))
            self._insert("baselines", {"name": name, "run_id": run_id, "saved_at": saved_at})
        self._commit(save)

    def baseline(self, name: str) -> int:
        row = self._execute("SELECT run_id FROM baselines WHERE name = ?", (name,)).fetchone()
        if row is None:
            names = [n for (n,) in self._execute("SELECT name FROM baselines ORDER BY name").fetchall()]
            raise StoreError(f"no baseline '{name}'" + (f"; saved: {', '.join(names)}" if names else
                                                        "; save one with `parbench run --save-baseline NAME`"))
        return row[0]

    def latest_run_on(self, hostname: str) -> int:
        """The newest complete run measured on the machine of that hostname (a fleet's store)."""
        for run_id, machine in reversed(self._execute(
                "SELECT id, machine_json FROM runs WHERE status = 'complete' ORDER BY id").fetchall()):
            if json.loads(machine).get("hostname") == hostname:
                return run_id
        hosts = sorted({json.loads(m).get("hostname", "?") for (m,) in
                        self._execute("SELECT machine_json FROM runs").fetchall()})
        raise StoreError(f"no complete run from machine '{hostname}'; machines in this store: {', '.join(hosts)}")

    # --- reading ----------------------------------------------------------------------------
    def run_ids(self) -> list[int]:
        return [row[0] for row in self._execute("SELECT id FROM runs ORDER BY id")]

    def resolve(self, reference: str | int | None) -> int:
        """A run id from 'latest', 'latest~1', an id, or None (the latest)."""
        ids = self.run_ids()
        if not ids:
            raise StoreError("no runs stored yet; `parbench run` makes one")
        text = str(reference or "latest")
        if text.startswith("latest"):
            back = text.split("~", 1)[1] if "~" in text else "0"
            if not (back.isascii() and back.isdigit()) or text not in ("latest", f"latest~{back}"):  # not ²
                raise StoreError(f"no run '{text}': write latest, latest~N (N runs before it) or a run id")
            if int(back) >= len(ids):
                raise StoreError(f"only {len(ids)} runs are stored")
            return ids[-1 - int(back)]
        if not (text.isascii() and text.isdigit()) or int(text) not in ids:
            raise StoreError(f"no run {ascii(text)[:40]}; stored runs: {', '.join(map(str, ids[-10:]))} (or latest, latest~1)")
        return int(text)

    def runs_summary(self) -> list[tuple]:
        return self._execute(
            "SELECT r.id, r.kind, r.started_at, r.status, r.scale, COUNT(c.id) "
            "FROM runs r LEFT JOIN cases c ON c.run_id = r.id GROUP BY r.id, r.kind, r.started_at, "
            "r.status, r.scale ORDER BY r.id").fetchall()

    def load_run(self, run_id: int) -> RunRecord:
        row = self._execute("SELECT id, kind, started_at, finished_at, status, scale, options_json, "
                            "machine_json, runtimes_json FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise StoreError(f"no run {run_id}")
        record = RunRecord(id=row[0], kind=row[1], started_at=row[2], finished_at=row[3],
                           status=row[4], scale=row[5], options=json.loads(row[6]),
                           machine=json.loads(row[7]), runtimes=json.loads(row[8]))
        cases = self._execute(
            "SELECT id, workload, runtime, model, family, params_json, workers, overrides_json, note, "
            "expected_checksum, status, reason, flags_json FROM cases WHERE run_id = ? ORDER BY id",
            (run_id,)).fetchall()
        for (case_id, workload, runtime, model, family, params, workers, overrides, note,
             expected, status, reason, flags) in cases:
            case = Case(workload, runtime, model, family, json.loads(params), workers,
                        tuple(json.loads(overrides)), note)
            run = CaseRun(case, expected, status=status, reason=reason, flags=json.loads(flags))
            for p in self._execute(
                    "SELECT idx, wall_ns, user_ns, sys_ns, max_rss_kb, voluntary_switches, "
                    "involuntary_switches, exit_code, outcome, detail, stderr_tail, tree_peak_rss_kb, "
                    "memory_json, seq FROM processes WHERE case_id = ? ORDER BY idx", (case_id,)).fetchall():
                run.processes.append(ProcessMeasurement(*p[:11], tree_peak_rss_kb=p[11] or 0,
                                                        memory=json.loads(p[12] or "{}"), sequence=p[13]))
            for s in self._execute(
                    "SELECT process_idx, rep, ns, items, checksum, verified, extra_json FROM samples "
                    "WHERE case_id = ? ORDER BY process_idx, rep", (case_id,)).fetchall():
                run.repetitions.append(Repetition(s[0], s[1], s[2], s[3], s[4], bool(s[5]), json.loads(s[6])))
            record.results.append(CaseResult(run))
        return record

    def load_analyses(self, run_id: int) -> list[Analysis]:
        return [Analysis(name, subject, json.loads(result)) for name, subject, result in self._execute(
            "SELECT kind, subject, result_json FROM analyses WHERE run_id = ?", (run_id,)).fetchall()]
