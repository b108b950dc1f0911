"""The fault suite (docs/reliability.md): a real implementation that attacks the harness one way
per model. Each test asserts what is kept, what is said, and that nothing is left behind."""
import json
import os
import resource
import signal
import sqlite3
import subprocess
import sys
import time
import uuid

import pytest

from conftest import (POSTGRES_URL, default_sigint, fresh_postgres_schema, parbench, require, require_postgres,
                      wait_until_stored)


def _case(db: str, model: str) -> tuple[str, str]:
    return sqlite3.connect(db).execute(
        "SELECT status, reason FROM cases WHERE model = ? AND workload != 'noop'", (model,)).fetchone()


def _survivors(mark: str) -> list[str]:
    found = subprocess.run(["pgrep", "-af", mark], capture_output=True, text=True).stdout
    return [line for line in found.splitlines() if "pgrep" not in line]


def _run(project, db, *models, extra=(), env=None, timeout=300):
    args = ["run", "--workload", "spawn-chain", "--scale", "smoke", "--processes", "2", "--db", db]
    for model in models:
        args += ["--model", model]
    return parbench(*args, *extra, root=project, env=env, timeout=timeout)


def test_a_flood_on_stdout_is_bad_output_and_the_harness_stays_small(hostile_project, db):
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    done = _run(hostile_project, db, "flood", extra=("--timeout", "30"))
    assert done.returncode == 0, done.stderr
    status, reason = _case(db, "flood")
    assert status == "bad-output" and "stdout exceeded 16 MiB" in reason
    # The harness read the flood as a stream: it never held more than the caps.
    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss < max(before, 400 * 1024)


def test_a_100_mb_line_is_bad_output_naming_the_limit(hostile_project, db):
    done = _run(hostile_project, db, "huge-line")
    assert done.returncode == 0, done.stderr
    status, reason = _case(db, "huge-line")
    assert status == "bad-output" and "a stdout line exceeded 1 MiB" in reason


def test_a_memory_hog_under_a_small_cap_is_an_out_of_memory_limit(hostile_project, db):
    done = _run(hostile_project, db, "hog", extra=("--memory-limit", "200M", "--timeout", "60"))
    assert done.returncode == 0, done.stderr
    status, reason = _case(db, "hog")
    assert status == "limit" and "out of memory at" in reason and "200 MiB" in reason
    assert "Traceback" not in done.stdout + done.stderr


@pytest.mark.parametrize("model", ["escape", "escape-holding-stdout"])
def test_a_setsid_escapee_is_killed_and_the_result_still_counts(hostile_project, db, model):
    mark = f"hostile-{uuid.uuid4().hex}"
    done = _run(hostile_project, db, model, env={"HOSTILE_MARK": mark})
    assert done.returncode == 0, done.stderr
    status, reason = _case(db, model)
    assert status == "ok", reason      # a leftover holding stdout open does not spoil a correct result
    details = [d for (d,) in sqlite3.connect(db).execute(
        "SELECT detail FROM processes JOIN cases ON cases.id = processes.case_id WHERE model = ?", (model,))]
    assert any("outlived it and were killed" in d for d in details)
    assert _survivors(mark) == []


@pytest.mark.parametrize("model, words", [
    ("negative-ns", "not a positive time"), ("zero-ns", "not a positive time"),
    ("huge-ns", "outside int64"), ("too-short-ns", "cannot be that short"),
    ("inflated-items", "units"), ("too-few-reps", "timed repetitions, asked for"),
    ("duplicate-reps", "where repetition 1 was due"), ("too-many-reps", "is a repetition beyond the"),
    ("bare-exit-3", "exit 3 without the protocol's limit line")])
def test_numbers_that_cannot_be_true_are_a_failed_case_with_the_reason(hostile_project, db, model, words):
    done = _run(hostile_project, db, model, extra=("--repeat", "3"))
    assert done.returncode == 0, done.stderr
    status, reason = _case(db, model)
    assert status in ("bad-output", "crash") and words in reason, (status, reason)
    verified = sqlite3.connect(db).execute(
        "SELECT COUNT(*) FROM samples JOIN cases ON cases.id = samples.case_id "
        "WHERE model = ? AND verified = 1", (model,)).fetchone()[0]
    assert verified == 0          # nothing of it is averaged in


def _postgres_cluster() -> list[str] | None:
    found = subprocess.run(["pg_lsclusters", "-h"], capture_output=True, text=True)
    if found.returncode != 0 or not found.stdout.strip() or os.geteuid() != 0:
        return None
    version, name = found.stdout.split()[:2]
    return [version, name]


def _stoppable_postgres_schema(schema: str):
    """(psycopg, the Debian cluster to stop and start, a URL scoped to a fresh schema), require()d:
    scripts/setup installs Debian's cluster and runs as root where it installs."""
    psycopg = require_postgres()
    cluster = _postgres_cluster()
    require(cluster, "needs root and a local Debian PostgreSQL cluster (pg_lsclusters) to stop and start")
    return psycopg, cluster, fresh_postgres_schema(schema)


def test_lying_numbers_and_nul_bytes_are_stored_safely_in_postgresql(hostile_project):
    require_postgres()
    schema_db = f"{POSTGRES_URL}"
    done = _run(hostile_project, schema_db, "huge-ns", "nul-stderr", "honest")
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr and "out of range" not in done.stderr


def test_postgresql_stopped_and_restarted_mid_run_loses_nothing(hostile_project):
    psycopg, cluster, scoped = _stoppable_postgres_schema("faults")
    env = {**os.environ, "PARBENCH_ROOT": str(hostile_project), "HOSTILE_DELAY_MS": "10"}
    child = subprocess.Popen([sys.executable, "-m", "parbench", "run", "--workload", "spawn-chain", "--scale",
                              "smoke", "--model", "honest", "--model", "slow", "--processes", "3",
                              "--order", "sequential", "--db", scoped],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:      # until the first process of `honest` is stored
            with psycopg.connect(scoped, connect_timeout=5) as db:
                try:
                    if db.execute("SELECT COUNT(*) FROM processes").fetchone()[0] >= 1:
                        break
                except psycopg.Error:
                    pass
            time.sleep(0.2)
        subprocess.run(["pg_ctlcluster", *cluster, "stop", "-m", "fast"], check=True)
        time.sleep(2)
        subprocess.run(["pg_ctlcluster", *cluster, "start"], check=True)
        out, err = child.communicate(timeout=300)
    finally:
        subprocess.run(["pg_ctlcluster", *cluster, "start"], capture_output=True)
        if child.poll() is None:
            child.kill()
    assert child.returncode == 0, err
    assert "Traceback" not in err
    with psycopg.connect(scoped) as db:
        cases = db.execute("SELECT model, status FROM cases WHERE workload != 'noop' ORDER BY model").fetchall()
        processes = db.execute("SELECT COUNT(*) FROM processes p JOIN cases c ON c.id = p.case_id "
                               "WHERE c.workload != 'noop' AND p.idx >= 0").fetchone()[0]
    assert cases == [("honest", "ok"), ("slow", "ok")]
    assert processes == 6                 # every measured process of both cases is there


def _start(project, db, *extra, env=None):
    env = {**os.environ, "PARBENCH_ROOT": str(project), **(env or {})}
    return subprocess.Popen([sys.executable, "-m", "parbench", "run", "--workload", "spawn-chain",
                             "--scale", "smoke", "--db", db, *extra],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=default_sigint)


@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM", "SIGHUP"])
def test_the_harness_killed_mid_run_leaves_no_benchmark_and_the_run_resumes(hostile_project, db, how):
    mark = f"hostile-{uuid.uuid4().hex}"
    # 0.7 s a repetition: the signal comes while the second of three processes runs
    child = _start(hostile_project, db, "--model", "honest", "--processes", "3",
                   env={"HOSTILE_DELAY_MS": "700", "HOSTILE_MARK": mark})
    wait_until_stored(db, "SELECT COUNT(*) FROM processes p JOIN cases c ON c.id = p.case_id WHERE c.workload != 'noop'")
    child.send_signal(getattr(signal, how))
    out, err = child.communicate(timeout=60)
    time.sleep(1)                         # the launcher's parent-death signal, then its kill
    assert subprocess.run(["pgrep", "-f", "hostile/run spawn-chain"], capture_output=True).stdout == b""
    if how == "SIGKILL":
        assert child.returncode == -signal.SIGKILL
        shown = parbench("history", "--db", db, root=hostile_project)
        assert "run 1 was interrupted" in shown.stderr and "parbench run --resume 1" in shown.stderr
    else:
        assert child.returncode == {"SIGTERM": 143, "SIGHUP": 129}[how], err
        assert "Resume with: parbench run --resume 1" in err
    assert sqlite3.connect(db).execute("SELECT status FROM runs WHERE id = 1").fetchone()[0] == "interrupted"
    resumed = parbench("run", "--resume", "1", "--db", db, root=hostile_project,
                       env={"HOSTILE_DELAY_MS": "5"}, check=True)
    assert "Resuming run 1" in resumed.stdout
    rows = sqlite3.connect(db).execute(
        "SELECT model, status FROM cases WHERE workload != 'noop' ORDER BY model").fetchall()
    assert rows == [("honest", "ok")]      # no duplicate, nothing half-measured


def test_a_live_run_cannot_be_resumed_twice_at_once(hostile_project, db):
    child = _start(hostile_project, db, "--model", "honest", "--processes", "2",
                   env={"HOSTILE_DELAY_MS": "2000"})
    try:
        wait_until_stored(db, "SELECT COUNT(*) FROM runs")
        refused = parbench("run", "--resume", "1", "--db", db, root=hostile_project)
        assert refused.returncode == 2
        assert "is being measured right now by pid" in refused.stderr
    finally:
        child.send_signal(signal.SIGINT)
        child.communicate(timeout=60)
    # Two resumes of the interrupted run at the same moment: one finishes it, the other is refused.
    env = {**os.environ, "PARBENCH_ROOT": str(hostile_project), "HOSTILE_DELAY_MS": "100"}
    both = [subprocess.Popen([sys.executable, "-m", "parbench", "run", "--resume", "1", "--db", db], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [(p.wait(timeout=300), p.stderr.read()) for p in both]
    assert sorted(code for code, _ in results) == [0, 2], results
    assert any("being measured right now" in err or "just taken over" in err for _, err in results)
    rows = sqlite3.connect(db).execute("SELECT model FROM cases WHERE workload != 'noop'").fetchall()
    assert rows == [("honest",)]


def test_a_store_gone_for_longer_than_the_retries_keeps_every_case_in_a_journal(hostile_project):
    psycopg, cluster, scoped = _stoppable_postgres_schema("journal")
    env = {**os.environ, "PARBENCH_ROOT": str(hostile_project), "HOSTILE_DELAY_MS": "10",
           "PARBENCH_STORE_RETRY": "0.2,0.2"}
    child = subprocess.Popen([sys.executable, "-m", "parbench", "run", "--workload", "spawn-chain", "--scale",
                              "smoke", "--model", "honest", "--model", "slow", "--processes", "3",
                              "--order", "sequential", "--db", scoped],
                             env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            with psycopg.connect(scoped, connect_timeout=5) as db:
                try:
                    if db.execute("SELECT COUNT(*) FROM processes").fetchone()[0] >= 1:
                        break
                except psycopg.Error:
                    pass
            time.sleep(0.2)
        subprocess.run(["pg_ctlcluster", *cluster, "stop", "-m", "fast"], check=True)
        out, err = child.communicate(timeout=300)
    finally:
        subprocess.run(["pg_ctlcluster", *cluster, "start"], capture_output=True)
        if child.poll() is None:
            child.kill()
    assert "Traceback" not in err
    assert "could not be stored" in err or "are kept in" in err, err
    journal = err.split("parbench load ")[1].split()[0]
    loaded = parbench("load", journal, "--db", scoped, root=hostile_project, check=True)
    assert "loaded " in loaded.stdout and "case(s)" in loaded.stdout
    with psycopg.connect(scoped) as db:
        cases = db.execute("SELECT model, status FROM cases WHERE workload != 'noop' ORDER BY model").fetchall()
        status = db.execute("SELECT status FROM runs").fetchone()[0]
        processes = db.execute("SELECT COUNT(*) FROM processes p JOIN cases c ON c.id = p.case_id "
                               "WHERE c.workload != 'noop' AND p.idx >= 0").fetchone()[0]
    assert cases == [("honest", "ok"), ("slow", "ok")] and processes == 6
    assert status == "complete"


def _benchmark_user(db: str) -> str:
    return json.loads(sqlite3.connect(db).execute("SELECT machine_json FROM runs").fetchone()[0])["benchmark_user"]


def _require_root() -> None:
    if os.geteuid() != 0:
        pytest.skip("only root's benchmarks run as another user")


def test_under_root_a_benchmark_cannot_leave_its_cgroups(hostile_project, db):
    _require_root()
    done = _run(hostile_project, db, "leave-cgroup")
    assert done.returncode == 0, done.stderr
    status, reason = _case(db, "leave-cgroup")
    assert status == "ok", reason
    assert _benchmark_user(db).startswith("parbench-bench ")


def test_under_root_a_benchmark_cannot_kill_the_harness(hostile_project, db):
    _require_root()
    done = _run(hostile_project, db, "kill-harness")
    assert done.returncode == 0, done.stderr
    assert _case(db, "kill-harness")[0] == "ok"


def test_with_as_root_a_benchmark_can_still_leave_its_cgroups(hostile_project, db):
    _require_root()
    done = _run(hostile_project, db, "leave-cgroup", extra=("--as-root",))
    assert done.returncode == 0, done.stderr
    status, reason = _case(db, "leave-cgroup")
    assert status == "crash" and "left its cgroup" in reason
    assert _benchmark_user(db) == "root (uid 0, --as-root)"


def test_with_as_root_a_benchmark_can_still_kill_the_harness(hostile_project, db):
    _require_root()
    done = _run(hostile_project, db, "kill-harness", extra=("--as-root",))
    assert done.returncode == -signal.SIGKILL
