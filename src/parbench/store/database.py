"""Reads and writes runs in SQLite (the default file) or PostgreSQL (a URL), one schema for both."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from parbench.records import (Case, CaseResult, CaseRun, ProcessMeasurement, Repetition,
                              RunRecord)
from parbench.store.schema import MIGRATIONS, SCHEMA_VERSION


class StoreError(RuntimeError):
    pass


def open_store(target: str | Path) -> "Store":
    target = str(target)
    if target.startswith(("postgresql://", "postgres://")):
        try:
            import psycopg
        except ImportError:
            raise StoreError("a PostgreSQL store needs psycopg: .venv/bin/pip install 'psycopg[binary]'") from None
        try:
            return Store(psycopg.connect(target, autocommit=False), placeholder="%s", serial="SERIAL")
        except psycopg.Error as error:
            raise StoreError(f"cannot open {target}: {error}".strip()) from None
    path = Path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        return Store(sqlite3.connect(path, timeout=30), placeholder="?", serial="INTEGER")
    except sqlite3.Error as error:
        raise StoreError(f"cannot open {path}: {error}") from None


class Store:
    def __init__(self, connection, placeholder: str, serial: str):
        self.db, self.placeholder, self.serial = connection, placeholder, serial
        self._migrate()

    # --- plumbing ---------------------------------------------------------------------------
    def _sql(self, text: str) -> str:
        return text.replace("?", self.placeholder)

    def _execute(self, text: str, args: tuple = ()):
        cursor = self.db.cursor()
        cursor.execute(self._sql(text), args)
        return cursor

    def _insert(self, table: str, row: dict[str, Any]) -> int:
        columns = ", ".join(row)
        marks = ", ".join("?" for _ in row)
        cursor = self._execute(f"INSERT INTO {table}({columns}) VALUES ({marks}) RETURNING id"
                               if table in ("runs", "cases") else
                               f"INSERT INTO {table}({columns}) VALUES ({marks})", tuple(row.values()))
        return cursor.fetchone()[0] if table in ("runs", "cases") else 0

    def _migrate(self) -> None:
        self._execute("CREATE TABLE IF NOT EXISTS meta(schema_version INTEGER NOT NULL)")
        found = self._execute("SELECT schema_version FROM meta").fetchone()
        version = found[0] if found else 0
        if version > SCHEMA_VERSION:
            raise StoreError(f"this results database has schema {version}, newer than this "
                             f"parbench understands ({SCHEMA_VERSION}); upgrade parbench")
        for statements in MIGRATIONS[version:]:
            for statement in statements:
                self._execute(statement.replace("INTEGER PRIMARY KEY", f"{self.serial} PRIMARY KEY"))
        if not found:
            self._execute("INSERT INTO meta(schema_version) VALUES (?)", (SCHEMA_VERSION,))
        else:
            self._execute("UPDATE meta SET schema_version = ?", (SCHEMA_VERSION,))
        self.db.commit()

    def close(self) -> None:
        self.db.close()

    # --- writing ----------------------------------------------------------------------------
    def begin_run(self, record: RunRecord) -> int:
        record.id = self._insert("runs", {
            "kind": record.kind, "started_at": record.started_at, "finished_at": None,
            "status": record.status, "scale": record.scale,
            "options_json": json.dumps(record.options), "machine_json": json.dumps(record.machine),
            "runtimes_json": json.dumps(record.runtimes)})
        self.db.commit()
        return record.id

    def update_runtimes(self, record: RunRecord) -> None:
        self._execute("UPDATE runs SET runtimes_json = ? WHERE id = ?",
                      (json.dumps(record.runtimes), record.id))
        self.db.commit()

    def add_case(self, run_id: int, result: CaseRun) -> int:
        """One case with all its processes and samples, committed at once: a Ctrl-C or a crash
        later in the suite never loses it."""
        c = result.case
        case_id = self._insert("cases", {
            "run_id": run_id, "case_key": c.key, "workload": c.workload, "runtime": c.runtime,
            "model": c.model, "family": c.family, "params_json": json.dumps(c.params),
            "workers": c.workers, "overrides_json": json.dumps(list(c.overrides)), "note": c.note,
            "expected_checksum": result.expected_checksum, "status": result.status,
            "reason": result.reason, "flags_json": json.dumps(result.flags)})
        for p in result.processes:
            self._insert("processes", {
                "case_id": case_id, "idx": p.index, "wall_ns": p.wall_ns, "user_ns": p.user_ns,
                "sys_ns": p.sys_ns, "max_rss_kb": p.max_rss_kb,
                "voluntary_switches": p.voluntary_switches,
                "involuntary_switches": p.involuntary_switches, "exit_code": p.exit_code,
                "outcome": p.outcome, "detail": p.detail, "stderr_tail": p.stderr_tail})
        for r in result.repetitions:
            self._insert("samples", {
                "case_id": case_id, "process_idx": r.process, "rep": r.rep, "ns": r.ns,
                "items": r.items, "checksum": r.checksum, "verified": int(r.verified),
                "extra_json": json.dumps(r.extra)})
        self.db.commit()
        return case_id

    def add_analysis(self, run_id: int, kind: str, subject: str, result: dict) -> None:
        self._insert("analyses", {"run_id": run_id, "kind": kind, "subject": subject,
                                  "result_json": json.dumps(result)})
        self.db.commit()

    def finish_run(self, run_id: int, status: str, finished_at: str) -> None:
        self._execute("UPDATE runs SET status = ?, finished_at = ? WHERE id = ?",
                      (status, finished_at, run_id))
        self.db.commit()

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
            back = int(text.split("~", 1)[1]) if "~" in text else 0
            if back >= len(ids):
                raise StoreError(f"only {len(ids)} runs are stored")
            return ids[-1 - back]
        if not text.isdigit() or int(text) not in ids:
            raise StoreError(f"no run '{text}'; stored runs: {', '.join(map(str, ids[-10:]))} (or latest, latest~1)")
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
                    "involuntary_switches, exit_code, outcome, detail, stderr_tail FROM processes "
                    "WHERE case_id = ? ORDER BY idx", (case_id,)).fetchall():
                run.processes.append(ProcessMeasurement(*p))
            for s in self._execute(
                    "SELECT process_idx, rep, ns, items, checksum, verified, extra_json FROM samples "
                    "WHERE case_id = ? ORDER BY process_idx, rep", (case_id,)).fetchall():
                run.repetitions.append(Repetition(s[0], s[1], s[2], s[3], s[4], bool(s[5]), json.loads(s[6])))
            record.results.append(CaseResult(run))
        return record

    def load_analyses(self, run_id: int) -> list[tuple[str, str, dict]]:
        return [(kind, subject, json.loads(result)) for kind, subject, result in self._execute(
            "SELECT kind, subject, result_json FROM analyses WHERE run_id = ?", (run_id,)).fetchall()]
