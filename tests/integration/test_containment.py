"""Containment (docs/reliability.md): every process parbench starts — a case, a runtime's
`--list`, a build — lives in a cgroup of its own and ends with it, even when it fights back:
it kills its launcher, leaves its cgroups, or signals its own process group."""
import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO, parbench
from parbench.measure.process import run_measured

ESCAPER = FIXTURES / "escaper" / "run"


@pytest.fixture
def escaper_project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "impls").mkdir(parents=True)
    (root / "workloads").symlink_to(REPO / "workloads")
    (root / "impls" / "escaper").symlink_to(FIXTURES / "escaper")
    return root


def _survivors(mark: str) -> list[str]:
    found = subprocess.run(["pgrep", "-af", mark], capture_output=True, text=True).stdout
    return [line for line in found.splitlines() if "pgrep" not in line]


def _gone(mark: str, within_s: float = 5) -> list[str]:
    deadline = time.time() + within_s
    while _survivors(mark) and time.time() < deadline:
        time.sleep(0.1)
    return _survivors(mark)


def _escaper(model: str, mark: str):
    env = {**os.environ, "ESCAPER_MARK": mark}
    return run_measured([str(ESCAPER), "spawn-chain", "--model", model, "--n", "3"], 20, env=env, feed=[0, 0])


def test_a_benchmark_that_kills_its_launcher_leaves_nothing_behind():
    mark = f"escaper-{uuid.uuid4().hex}"
    finished = _escaper("kill-launcher", mark)
    assert finished.exit_code is None           # not a result: its launcher was killed
    assert _gone(mark) == []


def test_a_benchmark_that_leaves_its_cgroups_is_still_killed_with_its_case():
    mark = f"escaper-{uuid.uuid4().hex}"
    finished = _escaper("leave-cgroup", mark)
    assert finished.exit_code == 0 and len(finished.stdout_lines) == 3     # the ready line and two repetitions
    assert finished.memory.get("leftover", 0) >= 1
    assert _gone(mark) == []


def test_kill_0_in_a_command_reaches_only_the_command():
    # The command signals its own process group and survives it: the launcher must not be in it.
    finished = run_measured(["sh", "-c", "trap '' TERM; sleep 5 & kill 0; wait; echo survived"], 20,
                            protocol=False)
    assert finished.exit_code == 0, finished
    assert finished.stdout_head.strip() == "survived"


def test_exec_of_the_trap_kill_0_idiom_stops_its_background_jobs_and_is_measured(tmp_path):
    done = parbench("exec", "-r", "2", "trap '' TERM; trap 'kill 0' EXIT; sleep 30 & echo hi",
                    "--db", str(tmp_path / "r.sqlite"), timeout=60)
    assert done.returncode == 0, done.stderr
    status, = sqlite3.connect(tmp_path / "r.sqlite").execute("SELECT status FROM cases").fetchone()
    assert status == "ok"


def test_kill_9_of_parbench_during_a_runtimes_list_takes_the_list_along(escaper_project, tmp_path):
    mark = f"escaper-{uuid.uuid4().hex}"
    env = {**os.environ, "PARBENCH_ROOT": str(escaper_project), "ESCAPER_LIST": "hang", "ESCAPER_MARK": mark}
    child = subprocess.Popen([sys.executable, "-m", "parbench", "list"], env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, start_new_session=True)
    deadline = time.time() + 30
    while not _survivors(mark) and time.time() < deadline:
        time.sleep(0.1)
    assert _survivors(mark), "the runtime's --list never started"
    child.send_signal(signal.SIGKILL)
    child.wait(10)
    assert _gone(mark) == []
    assert _gone(f"{escaper_project}/impls/escaper/run --list") == []


def test_a_list_that_leaves_a_process_holding_its_stdout_does_not_hold_parbench(escaper_project):
    mark = f"escaper-{uuid.uuid4().hex}"
    started = time.time()
    done = parbench("list", root=escaper_project, env={"ESCAPER_LIST": "daemon", "ESCAPER_MARK": mark},
                    timeout=300)
    assert done.returncode == 0, done.stderr
    assert "kill-launcher" in done.stdout and time.time() - started < 30
    assert _gone(mark) == []


def test_a_killed_launcher_leaves_no_cgroup_behind_not_even_those_of_its_next_runs():
    from parbench.measure import process
    run_measured(["true"], 10, protocol=False)           # a launcher with the next runs made ready
    launcher = process._local.launcher.process.pid
    deadline = time.time() + 5                            # made right after the answer
    while not process._made_by(launcher) and time.time() < deadline:
        time.sleep(0.01)
    assert process._made_by(launcher), "the next runs' cgroups are made ahead"
    finished = run_measured(["sh", "-c", "kill -9 $PPID; sleep 5"], 20)
    assert finished.exit_code is None
    assert process._made_by(launcher) == []
