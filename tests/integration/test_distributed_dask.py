"""Python's `dask` model (a real Dask cluster per process) through the real parbench CLI: a smoke
case verified, and a dask worker killed during a run is a clear failed case that keeps the others."""
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from conftest import parbench, require, require_runtime
from parbench.measure import runtimes as runtimes_module

PYTHON = runtimes_module.load_all()["python"]


@pytest.fixture(autouse=True, scope="module")
def dask_model_listed() -> None:
    """Python's `dask` model, which it lists where `distributed` imports (require()d: it is a
    dependency that scripts/setup installs into the venv)."""
    require_runtime(PYTHON)
    listed = PYTHON.describe()["workloads"].get("sdes-ecb", {}).get("models", {})
    require("dask" in listed, "python's dask model is not listed (distributed is not installed: "
            "pip install -e '.[test]')")


def _cases(db: str) -> dict[tuple[str, str], tuple[str, str]]:
    rows = sqlite3.connect(db).execute(
        "SELECT model, params_json, status, reason FROM cases WHERE workload = 'sdes-ecb'").fetchall()
    return {(model, json.loads(params)["cipher"]): (status, reason or "") for model, params, status, reason in rows}


def test_dask_sdes_ecb_smoke_is_verified(tmp_path):
    db = str(tmp_path / "dask.sqlite")
    done = parbench("run", "--workload", "sdes-ecb", "--runtime", "python", "--model", "dask", "--scale", "smoke",
                    "--processes", "1", "--repeat", "2", "--db", db, timeout=900)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    cases = _cases(db)
    assert set(cases) == {("dask", "bitwise"), ("dask", "table")}
    assert all(status == "ok" for status, _ in cases.values()), cases
    samples = sqlite3.connect(db).execute("SELECT verified, extra_json FROM samples JOIN cases ON cases.id = case_id "
                                          "WHERE workload = 'sdes-ecb'").fetchall()
    assert len(samples) == 4 and all(verified for verified, _ in samples)
    for _, extra_json in samples:
        extra = json.loads(extra_json)
        assert extra["cluster"] == "local" and extra["cluster_start_ns"] > 0
        assert extra["workers_used"] == extra["workers"] == extra["cluster_workers"]
        assert extra["ceiling"] == "copy"


def _descendants(root: int) -> dict[int, str]:
    """Every process below `root`, with its command line."""
    parents, commands = {}, {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parents[int(entry)] = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                commands[int(entry)] = cmdline.read().replace(b"\0", b" ").decode()
        except (OSError, ValueError, IndexError):
            continue
    found, frontier = {}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, its_parent in parents.items():
            if its_parent == parent and pid not in found:
                found[pid] = commands.get(pid, "")
                frontier.append(pid)
    return found


def _registered_workers_of_the_timed_process(root: int) -> list[int]:
    """The dask worker pids of the timed process (its input of 120,000 bytes, not the verification's
    100,003) once both say in their logs that they registered and the run's client is connected."""
    timed = [pid for pid, command in _descendants(root).items()
             if "--model dask" in command and "-120000.tsv" in command]
    if not timed:
        return []
    workers = {pid: command for pid, command in _descendants(timed[0]).items() if "dask_worker" in command}
    registered = []
    for pid, command in workers.items():
        folder, name = re.search(r"--local-directory (\S+)", command), re.search(r"--name parbench-(\d+)", command)
        if folder and name and "Registered to" in _read(os.path.join(folder.group(1), f"worker-{name.group(1)}.log")) \
                and "Receive client connection" in _read(os.path.join(folder.group(1), "scheduler.log")):
            registered.append(pid)
    return registered if len(registered) == 2 else []


def _read(path: str) -> str:
    try:
        with open(path) as file:
            return file.read()
    except OSError:
        return ""


def test_a_dask_worker_killed_during_a_run_is_a_clear_failed_case_and_the_others_are_kept(tmp_path):
    db = str(tmp_path / "killed.sqlite")
    args = [sys.executable, "-m", "parbench", "run", "--workload", "sdes-ecb", "--runtime", "python",
            "--model", "seq", "--model", "dask", "--scale", "smoke", "--param", "size=120000",
            "--param", "cipher=bitwise", "--workers", "2", "--processes", "1", "--warmup", "0", "--repeat", "10",
            "--db", db]
    run = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 600
        workers: list[int] = []
        while not workers and run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
            workers = _registered_workers_of_the_timed_process(run.pid)
        assert workers, "the dask case's timed process never had two registered workers"
        time.sleep(1.0)   # into the repetitions
        cluster = [pid for pid, command in _descendants(run.pid).items() if "distributed.cli" in command]
        os.kill(workers[0], signal.SIGKILL)
        out, err = run.communicate(timeout=600)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, out[-3000:] + err[-3000:]
    cases = _cases(db)
    assert cases[("seq", "bitwise")][0] == "ok"
    status, reason = cases[("dask", "bitwise")]
    assert status == "crash"
    # Almost always mid-repetition; on a machine loaded enough, the run may still be finishing its
    # start-up when the worker dies, which is the same fault told as such.
    assert re.search(r"exit 1: dask worker (tcp://127\.0\.0\.1:\d+ died during the run|parbench-\d exited during "
                     r"start-up) \(killed by SIGKILL", reason), reason
    assert "Traceback" not in reason
    time.sleep(1.0)
    assert not [pid for pid in cluster if os.path.exists(f"/proc/{pid}") and
                open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"], "a cluster process was left"
