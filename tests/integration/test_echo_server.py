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
    done = parbench("run", "--workload", "echo-server", "--scale", "smoke", "--model", "threads", "--processes", "2",
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
        assert items == 1000 and extra["loadgen_replies"] == 1000 and extra["replies"] == 1002
        assert 0 < extra["p50_ns"] <= extra["p99_ns"] <= extra["max_ns"] <= ns
        assert extra["nofile_limit"] > 0 and extra["replies_per_s"] > 0
    assert "latency p50" in done.stdout


def test_nothing_of_a_server_outlives_its_case(good_run):
    root, _, _ = good_run
    assert _survivors(str(root)) == []
