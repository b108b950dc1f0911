"""Where measured processes go: the store, retried with back-off when it fails, and a local
journal for what still could not be stored, so a lost database server never loses a measurement.

`parbench load JOURNAL --db DB` puts a journal's cases into a store afterwards.
"""
from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Callable

from parbench import targets
from parbench.records import CaseRun, ProcessMeasurement, Repetition, RunRecord
from parbench.store import codec
from parbench.store.database import Store, StoreError, StoreTurnedReadOnly

# About 30 s in all: a server restart fits in it. PARBENCH_STORE_RETRY (seconds, comma
# separated) changes it, for tests of what happens beyond it. The second tries (a whole case
# again, the run's end) take its first steps only, so the same setting shortens them too.
RETRY_DELAYS_S = tuple(float(s) for s in os.environ.get("PARBENCH_STORE_RETRY", "0.5,1,2,4,8,15").split(",") if s)


class DiskFull(RuntimeError):
    """Neither the store nor the journal beside it could be written."""


def store_errors() -> tuple[type[BaseException], ...]:
    """What a store's driver raises when it cannot take a write (SQLite's, PostgreSQL's, the disk's)."""
    errors: tuple[type[BaseException], ...] = (sqlite3.Error, OSError, StoreError)
    try:
        import psycopg
        errors += (psycopg.Error,)
    except ImportError:
        pass
    return errors


def _is_disk_full(error: BaseException) -> bool:
    text = str(error).lower()
    return "disk is full" in text or "no space left" in text or getattr(error, "errno", None) == 28


def likely_cause(error: BaseException) -> str:
    """A hint at why a store refused a write, from what its driver said: the disk, read-only
    media or permissions; "" when the error does not say (no guess is better than a wrong one)."""
    text = str(error).lower().replace("-", "").replace(" ", "")
    if _is_disk_full(error):
        return "the disk is full"
    if "readonly" in text or getattr(error, "errno", None) == 30:
        return "the store is read-only"
    if "permissiondenied" in text or getattr(error, "errno", None) == 13:
        return "the store may not be written by this user"
    return ""


def retrying(store: Store, work: Callable[[], Any], sleep=time.sleep, delays=None) -> Any:
    """work() until it succeeds, reconnecting between tries; the last error if it never does.
    A full disk is not retried: waiting does not free space; nor a store turned read-only."""
    last: BaseException | None = None
    for delay in (0, *(RETRY_DELAYS_S if delays is None else delays)):
        if delay:
            sleep(delay)
            try:
                store.reconnect()
            except store_errors() as error:
                last = error
                continue
        try:
            return work()
        except store_errors() as error:
            last = error
            if _is_disk_full(error) or isinstance(error, StoreTurnedReadOnly):
                break
    assert last is not None
    raise last


class Journal:
    """A JSON-lines file of whole cases (and a run's end) that the store did not take."""

    def __init__(self, path: Path, record: RunRecord):
        self.path, self.record, self.count = path, record, 0
        self.keys: set[str] = set()       # the cases it holds, which the store may hold half of

    def _write(self, entry: dict, what: str) -> None:
        header = codec.run_header(self.record)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a") as f:
                f.write(json.dumps({"run": header, **entry}, default=str) + "\n")
        except OSError as error:
            raise DiskFull(f"could not store {what} in the database nor in the journal "
                           f"{self.path}: {error.strerror or error}") from None

    def append(self, run: CaseRun) -> None:
        self._write({"case": codec.case_run_dict(run)}, run.case.key)
        self.count += 1
        self.keys.add(run.case.key)

    def finish(self, status: str, finished_at: str) -> None:
        self._write({"finish": {"status": status, "finished_at": finished_at}}, f"the end of run {self.record.id}")


def read_journal(path: Path) -> list[tuple[dict, CaseRun | None, dict | None]]:
    """(the run's header, a case or None, a run's end or None) for every line of a journal;
    a ValueError naming the line for anything that is not one (codec.BadShape is one)."""
    out = []
    text = targets.read_bounded(path, targets.RECORDS_LIMIT).decode(errors="replace")
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            where = f"line {number}"
            try:
                entry = json.loads(line)
            except (ValueError, RecursionError):
                raise codec.BadShape(f"{where}: not JSON") from None
            if not isinstance(entry, dict) or "run" not in entry:
                raise codec.BadShape(f"{where}: no run header")
            codec.run_record(entry["run"], f"{where}: run")
            finish = entry.get("finish")
            if finish is not None and not (isinstance(finish, dict) and isinstance(finish.get("status"), str)
                                           and isinstance(finish.get("finished_at"), str)):
                raise codec.BadShape(f"{where}: finish is not a status and a time")
            out.append((entry["run"], codec.case_run_from_dict(entry["case"], where) if "case" in entry else None, finish))
    return out


class StoreSink:
    """Stores every process as it is measured; a case the store could not take (after the
    retries) is written whole, later, or into the journal."""

    def __init__(self, store: Store, record: RunRecord, journal_dir: Path, sleep=time.sleep):
        self.store, self.record, self.sleep = store, record, sleep
        self.journal = Journal(journal_dir / f"run-{record.id}-{time.strftime('%Y%m%dT%H%M%S')}.jsonl", record)
        self._case_ids: dict[int, int] = {}      # id(CaseRun) → its row
        self._broken: set[int] = set()           # cases whose rows are incomplete
        self.errors: list[str] = []

    def _try(self, run: CaseRun, work: Callable[[], Any]) -> Any:
        if id(run) in self._broken:
            return None
        try:
            return retrying(self.store, work, self.sleep)
        except store_errors() as error:
            self._broken.add(id(run))
            self.errors.append(f"{run.case.key}: {error}")
            return None

    def case_started(self, run: CaseRun) -> None:
        case_id = self._try(run, lambda: self.store.begin_case(self.record.id, run))
        if case_id is not None:
            self._case_ids[id(run)] = case_id

    def process_done(self, run: CaseRun, measurement: ProcessMeasurement, reps: list[Repetition]) -> None:
        if id(run) in self._case_ids:
            self._try(run, lambda: self.store.add_process(self._case_ids[id(run)], measurement, reps))

    def case_done(self, run: CaseRun) -> None:
        key = id(run)
        if key in self._case_ids and key not in self._broken:
            self._try(run, lambda: self.store.finish_case(self._case_ids[key], run))
            if key not in self._broken:
                return
        try:      # the rows are incomplete or missing: the whole case again (the back-off's first
            # two steps: the full back-off has just failed), else the journal
            retrying(self.store, lambda: self.store.replace_case(self.record.id, run), self.sleep,
                     delays=RETRY_DELAYS_S[:2])
        except store_errors():
            self.journal.append(run)      # raises DiskFull when the journal cannot be written either
        self._broken.discard(key)
