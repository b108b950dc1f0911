"""echo-server end to end: the harness runs a server under the launcher and drives each of its
repetitions with the load generator (measure/echo_loop.py), against tests/fixtures/echoing, a
Python server of the contract that serves right in `threads` and breaks it one way per other model."""
import json
import sqlite3
import subprocess

import pytest

from conftest import parbench, project_with


def _survivors(mark: str) -> list[str]:
    found = subprocess.run(["pgrep", "-af", mark], capture_output=True, text=True).stdout
    return [line for line in found.splitlines() if "pgrep" not in line]


@pytest.fixture(scope="module")
def good_run(tmp_path_factory):
    root = project_with(tmp_path_factory.mktemp("echo") / "project", "echoing")
    db = str(root.parent / "results.sqlite")
    done = parbench("run", "--workload", "echo-server", "--scale", "smoke", "--model", "threads", "--model", "pool",
                    "--processes", "2",
                    "--db", db, "--timeout", "30", root=root, timeout=300)
    return root, db, done


def test_a_right_server_is_a_verified_case_timed_by_the_load_generator(good_run):
    root, db, done = good_run
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    status, reason = sqlite3.connect(db).execute("SELECT status, reason FROM cases WHERE model = 'threads'").fetchone()
    assert status == "ok", reason
    samples = sqlite3.connect(db).execute(
        "SELECT samples.ns, samples.items, samples.verified, samples.extra_json FROM samples JOIN cases "
        "ON cases.id = samples.case_id WHERE cases.model = 'threads'").fetchall()
    assert samples and all(verified for _, _, verified, _ in samples)
    for ns, items, _, extra in samples:
        extra = json.loads(extra)
        assert items == 1000 and extra["loadgen_replies"] == 1000 and extra["replies"] == 1003
        assert 0 < extra["p50_ns"] <= extra["p99_ns"] <= extra["max_ns"] <= ns
        assert extra["nofile_limit"] > 0 and extra["replies_per_s"] > 0
        # the launcher's readings at each line: the server's CPU between its lines, the tasks made
        assert extra["measured_cpu_ns"] > 0 and extra["tasks_made"] > 0


def test_a_server_model_with_workers_owes_no_busy_intervals(good_run):
    _, db, _ = good_run
    status, reason = sqlite3.connect(db).execute("SELECT status, reason FROM cases WHERE model = 'pool'").fetchone()
    assert status == "ok", reason


def test_nothing_of_a_server_outlives_its_case(good_run):
    root, _, _ = good_run
    assert _survivors(str(root)) == []


FAULTS = {   # model: (status, words of its one-line reason)
    "no-ready": ("timeout", "killed after the 12 s timeout"),
    "no-listener": ("bad-output", "connection 0, request 0: connection refused (nothing listens on the port)"),
    "closes-early": ("bad-output", "request 2: connection closed early by the server, after 0 of the reply's 72 bytes"),
    "wrong": ("wrong-checksum", "request 0: wrong byte at offset"),        # 8, unless two bytes agree
    "early-reply": ("bad-output", "replied before it had read the request whole"),
    "crash": ("crash", "exit 1; repetition 0 (warm-ups count from 0): the load generator: connection"),
    "hang": ("timeout", "the load generator: timeout after"),
    "miscount": ("unproven", "the server counts 50 replies written, the load generator received 48 and 3 probe"),
}


@pytest.fixture(scope="module")
def fault_run(tmp_path_factory):
    """Every fault in one run, beside the right server: each a failed case, the right one kept."""
    root = project_with(tmp_path_factory.mktemp("faults") / "project", "echoing")
    db = str(root.parent / "results.sqlite")
    models = [arg for model in [*FAULTS, "threads"] for arg in ("--model", model)]
    done = parbench("run", "--workload", "echo-server", "--scale", "smoke", *models, "--processes", "2",
                    "--db", db, "--timeout", "12", root=root, timeout=300)
    return root, db, done


@pytest.mark.parametrize("model", sorted(FAULTS))
def test_a_faulty_server_is_a_failed_case_with_a_one_line_reason(fault_run, model):
    _, db, done = fault_run
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    status, reason = sqlite3.connect(db).execute("SELECT status, reason FROM cases WHERE model = ?",
                                                 (model,)).fetchone()
    want_status, words = FAULTS[model]
    assert (status, "\n" in reason) == (want_status, False) and words in reason, reason


def test_the_right_server_beside_the_faulty_ones_is_kept(fault_run):
    _, db, _ = fault_run
    assert sqlite3.connect(db).execute("SELECT status FROM cases WHERE model = 'threads'").fetchone() == ("ok",)


def test_nothing_of_a_faulty_server_outlives_the_run(fault_run):
    root, _, _ = fault_run
    assert _survivors(str(root)) == []

