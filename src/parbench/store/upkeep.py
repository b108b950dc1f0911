"""Chores on a store that are no run's: marking runs whose harness died, and loading the cases a
run kept in its journal while its store could not take them (`parbench load`)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from parbench.measure import liveness
from parbench.records import now
from parbench.store import codec
from parbench.store.database import Store
from parbench.store.sink import read_journal, store_errors


@dataclass
class Orphan:
    """A run marked interrupted because its owner is gone, and why we know it is."""
    run_id: int
    why: str
    kind: str = "suite"        # `run --resume` finishes suite runs only (kinds/suite.py)


def mark_orphans(store: Store) -> list[Orphan]:
    """Every run still 'running' whose owner is dead becomes 'interrupted' (it can be resumed).
    A store that cannot be written (read-only) is left as it is: its next writer marks them."""
    try:
        running = store.running_runs()
    except Exception:      # noqa: BLE001 — an older or foreign database: nothing to mark
        return []
    marked = []
    for run_id, owner, heartbeat_age in running:
        if liveness.is_alive(owner, heartbeat_age):
            continue
        try:
            store.finish_run(run_id, "interrupted", now())
        except Exception:  # noqa: BLE001 — a read-only store: read as it is, marked by the next writer
            store.db.rollback()
            continue
        marked.append(Orphan(run_id, liveness.why_dead(owner, heartbeat_age), store.run_kind(run_id)))
    return marked


@dataclass
class Loaded:
    """What `load_journal` stored: how many cases, into which runs of the store."""
    cases: int
    run_ids: list[int]


class LoadStopped(RuntimeError):
    """The store stopped taking a journal's cases (a full disk, a lost server): how far it got."""

    def __init__(self, error: BaseException, stored: int, total: int):
        super().__init__(str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__)
        self.stored, self.total = stored, total


def load_journal(journal: Path, open_store: Callable[[], Store]) -> Loaded:
    """A journal's cases (and its runs' ends) into the store; OSError or ValueError (BadShape)
    when the file is not a journal, before the store is even opened (a typo makes no database);
    LoadStopped when the store stops taking them (the journal is only read, never changed)."""
    entries = read_journal(journal)
    store = open_store()
    targets: dict[int, int] = {}       # the journal's run id → the run that holds its cases here
    total = sum(1 for _, case, _ in entries if case is not None)
    stored = 0
    try:
        for header, case, finish in entries:
            if header["id"] not in targets:
                targets[header["id"]] = _run_for(store, header)
            run_id = targets[header["id"]]
            if case is not None:
                store.replace_case(run_id, case)
                stored += 1
            if finish is not None:
                store.finish_run(run_id, finish["status"], finish["finished_at"])
    except store_errors() as error:
        raise LoadStopped(error, stored, total) from None
    return Loaded(total, sorted(set(targets.values())))


def _run_for(store: Store, header: dict) -> int:
    """The run this journal's header names if this store has it (the same start on the same
    machine: a journal loaded twice stores its run once), else a new one with its metadata."""
    record = codec.run_record(header, "the journal's run")
    existing = store.find_run(record)
    if existing is not None:
        return existing
    record.id = None
    return store.begin_run(record)
