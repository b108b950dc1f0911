"""What parbench may open and read (docs/reliability.md): only an empty database or its own; a
read-only store is still read; a journal loaded twice stores its run once; malformed journals
and exports are one line; a run is alive while its owner can be seen or while it beats."""
import dataclasses
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time

import pytest

from conftest import default_sigint, fresh_postgres_schema, parbench, wait_until_stored
from parbench.store import open_store
from parbench.store.sink import Journal


def _one_line_exit_2(done) -> str:
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    return done.stderr


def _exec_run(db: str, command: str = "true") -> None:
    parbench("exec", "-r", "2", command, "--db", db, check=True)


def test_another_programs_sqlite_file_is_refused_and_left_as_it_was(tmp_path):
    path = tmp_path / "theirs.sqlite"
    theirs = sqlite3.connect(path)
    theirs.execute("CREATE TABLE users(id INTEGER, name TEXT)")
    theirs.commit()
    theirs.close()
    for command in (["history"], ["exec", "-r", "2", "true"]):
        error = _one_line_exit_2(parbench(*command, "--db", str(path)))
        assert "not a parbench results database" in error and "users" in error
    assert [n for (n,) in sqlite3.connect(path).execute("SELECT name FROM sqlite_master")] == ["users"]


def test_a_store_whose_schema_version_is_text_is_one_line(tmp_path):
    path = tmp_path / "odd.sqlite"
    odd = sqlite3.connect(path)
    odd.execute("CREATE TABLE meta(schema_version TEXT)")
    odd.execute("CREATE TABLE runs(id INTEGER)")
    odd.execute("INSERT INTO meta VALUES ('five')")
    odd.commit()
    error = _one_line_exit_2(parbench("history", "--db", str(path)))
    assert "schema_version is ['five']" in error


def test_a_postgresql_database_with_a_foreign_meta_table_is_one_line():
    url = fresh_postgres_schema("foreign_meta")
    import psycopg
    with psycopg.connect(url) as db:
        db.execute("CREATE TABLE meta(key TEXT, value TEXT)")
        db.execute("CREATE TABLE runs(x INTEGER)")
    error = _one_line_exit_2(parbench("history", "--db", url))
    assert "not a parbench results database" in error and "meta table" in error


def test_read_commands_work_on_a_read_only_store(tmp_path):
    mount = tmp_path / "ro"
    mount.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", str(mount)], capture_output=True)
    assert mounted.returncode == 0, f"cannot mount a tmpfs (the test needs root): {mounted.stderr}"
    try:
        db = str(mount / "r.sqlite")
        _exec_run(db)
        _exec_run(db)
        dead = sqlite3.connect(db)             # a run whose harness died: a writer would mark it
        dead.execute("UPDATE runs SET status = 'running', owner = ? WHERE id = 2", (f"{socket.gethostname()}|999999999|1",))
        dead.commit()
        dead.close()
        subprocess.run(["mount", "-o", "remount,ro", str(mount)], check=True)
        for command in (["history"], ["show", "1"], ["compare", "1", "1"]):
            done = parbench(*command, "--db", db)
            assert done.returncode == 0, done.stderr
            assert "true" in done.stdout or "exec" in done.stdout
    finally:
        if subprocess.run(["umount", str(mount)], capture_output=True).returncode:
            subprocess.run(["umount", "-l", str(mount)], capture_output=True)


def test_the_same_journal_loaded_twice_stores_its_run_once(tmp_path):
    source, target = str(tmp_path / "a.sqlite"), str(tmp_path / "b.sqlite")
    _exec_run(source)
    _exec_run(target, "echo")                 # so the journal's run id is taken here by another run
    record = open_store(source).load_run(1)
    journal = Journal(tmp_path / "run-1.jsonl", dataclasses.replace(record, results=[]))
    for result in record.results:
        journal.append(result.run)
    journal.finish("complete", record.finished_at)
    for _ in range(2):
        parbench("load", str(journal.path), "--db", target, check=True)
    runs = sqlite3.connect(target).execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    cases = sqlite3.connect(target).execute("SELECT COUNT(*) FROM cases").fetchone()[0]
    assert (runs, cases) == (2, 2)


@pytest.mark.parametrize("text", ['{"run": {}}', "[1,2,3]", '{"run": {"id": 1}, "case": {"case": 5}}', "{", "7"])
def test_a_malformed_journal_is_one_line_and_stores_nothing(tmp_path, text):
    journal = tmp_path / "bad.jsonl"
    journal.write_text(text + "\n")
    db = tmp_path / "r.sqlite"
    error = _one_line_exit_2(parbench("load", str(journal), "--db", str(db)))
    assert "is not a parbench journal" in error
    assert not db.exists()


@pytest.mark.parametrize("change", [
    lambda e: e.update(runs={}), lambda e: e.update(runs=[]), lambda e: e.update(results=7),
    lambda e: e["results"][0]["processes"][0].update(wall_ns="fast"),
    lambda e: e["results"][0]["processes"][0]["samples"][0].update(ns=10 ** 20),
    lambda e: e["results"][0].update(case=[1, 2, 3])])
def test_compare_of_a_malformed_export_is_one_line(tmp_path, change):
    import json
    db, good = str(tmp_path / "r.sqlite"), tmp_path / "good.json"
    parbench("exec", "-r", "2", "true", "--db", db, "--export-json", str(good), check=True)
    export = json.loads(good.read_text())
    change(export)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(export))
    error = _one_line_exit_2(parbench("compare", str(good), str(bad)))
    assert "not a parbench JSON export" in error


def _as_running(db: str, owner: str, heartbeat_age_s: float) -> None:
    running = sqlite3.connect(db)
    running.execute("UPDATE runs SET status = 'running', owner = ?, heartbeat_at = ?", (owner, time.time() - heartbeat_age_s))
    running.commit()
    running.close()


def test_a_run_whose_host_stopped_beating_is_interrupted_and_resumable(faulty_project, db):
    parbench("run", "--workload", "spawn-chain", "--model", "ok", "--scale", "smoke", "--db", db,
             root=faulty_project, check=True)
    _as_running(db, "fleet-host-7|boot|pid:[1]|4242|99", heartbeat_age_s=20)
    shown = parbench("history", "--db", db, root=faulty_project)
    assert "was interrupted" not in shown.stderr         # it beat 20 s ago: alive
    _as_running(db, "fleet-host-7|boot|pid:[1]|4242|99", heartbeat_age_s=3600)
    shown = parbench("history", "--db", db, root=faulty_project)
    # 3600 s plus the seconds between setting the heartbeat and reading it on a loaded machine
    assert "run 1 was interrupted" in shown.stderr
    assert re.search(r"has not beaten for 36\d\d s", shown.stderr), shown.stderr
    assert "parbench run --resume 1" in shown.stderr


def test_a_live_run_in_another_pid_namespace_is_not_resumed(faulty_project, db):
    if subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "true"], capture_output=True).returncode:
        pytest.fail("unshare --pid needs root (the test suite runs as root)")
    env = {**os.environ, "PARBENCH_ROOT": str(faulty_project), "FAULTY_DELAY_MS": "300",
           "FAULTY_SLOW_FACTOR": "1000"}
    child = subprocess.Popen(["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", sys.executable, "-m",
                              "parbench", "run", "--workload", "spawn-chain", "--model", "slow", "--scale", "smoke",
                              "--db", db], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=default_sigint)
    try:
        wait_until_stored(db, "SELECT COUNT(*) FROM runs")
        refused = parbench("run", "--resume", "1", "--db", db, root=faulty_project)
        assert refused.returncode == 2, refused.stdout + refused.stderr
        assert "is being measured right now" in refused.stderr
    finally:
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=60)


def test_a_running_harness_beats_while_it_measures(tmp_path):
    from parbench.records import RunRecord
    from parbench.store.heartbeat import Heartbeat
    db = str(tmp_path / "r.sqlite")
    store = open_store(db)
    record = RunRecord(None, "then", "smoke", {}, {"hostname": socket.gethostname()}, {})
    store.begin_run(record, "me")
    sqlite_db = sqlite3.connect(db)
    sqlite_db.execute("UPDATE runs SET heartbeat_at = 0")
    sqlite_db.commit()
    beat = Heartbeat(db, record.id, "me", every_s=0.05).start()
    try:
        deadline = time.time() + 10
        while store.heartbeat_age(record.id) > 5 and time.time() < deadline:
            time.sleep(0.05)
    finally:
        beat.stop()
    assert store.heartbeat_age(record.id) < 5
