"""Every installed runtime: its own unit tests pass, and at the smoke scale every model it lists
runs, answers the protocol and gives the oracle's checksums (a limit is a result, not a failure)."""
import json
import sqlite3
import subprocess

import pytest

from conftest import parbench
from parbench import runtimes as runtimes_module

RUNTIMES = runtimes_module.load_all()
ACCEPTABLE = {"ok", "limit"}


def _available(name: str) -> None:
    runtime = RUNTIMES[name]
    if not runtime.available:
        pytest.skip(f"{name}: {runtime.why_unavailable()}")


@pytest.mark.parametrize("name", sorted(RUNTIMES))
def test_native_unit_tests_pass(name):
    _available(name)
    runtime = RUNTIMES[name]
    done = subprocess.run([str(runtime.folder / "test")], cwd=runtime.folder, capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, f"{name} tests failed:\n{_failures(done.stdout)}\n{done.stderr[-3000:]}"


def _failures(output: str) -> str:
    """The failing tests' own lines first (TAP's `not ok`, FAIL, Error…), then the output's tail:
    a long passing log must not push the one failure out of the message."""
    lines = output.splitlines()
    marks = [i for i, line in enumerate(lines)
             if any(m in line for m in ("not ok", "FAIL", "Error", "error:", "panicked"))]
    picked = "\n".join("\n".join(lines[max(0, i - 2): i + 25]) for i in marks[:5])
    return f"{picked}\n--- tail ---\n{output[-2000:]}"


@pytest.mark.parametrize("name", sorted(RUNTIMES))
def test_list_names_every_workload_with_families(name):
    _available(name)
    listed = RUNTIMES[name].describe()
    assert listed["runtime"] == name
    for workload, entry in listed["workloads"].items():
        for model, info in entry["models"].items():
            assert info["family"] in {"seq", "threads", "processes", "data-parallel", "async", "green",
                                      "actors", "fibers", "distributed"}, (workload, model)


@pytest.mark.parametrize("name", sorted(RUNTIMES))
def test_smoke_suite_gives_verified_results(name, tmp_path):
    _available(name)
    db = str(tmp_path / "smoke.sqlite")
    done = parbench("run", "--runtime", name, "--scale", "smoke", "--processes", "1", "--repeat", "2",
                    "--db", db, timeout=1500)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    rows = sqlite3.connect(db).execute("SELECT case_key, status, reason FROM cases").fetchall()
    listed = RUNTIMES[name].describe()["workloads"]
    expected_models = sum(len(e["models"]) for w, e in listed.items() if w != "noop")
    assert len(rows) >= expected_models
    bad = [(key, status, reason) for key, status, reason in rows if status not in ACCEPTABLE]
    assert not bad, json.dumps(bad, indent=1)
    verified = sqlite3.connect(db).execute("SELECT COUNT(*) FROM samples WHERE verified = 1").fetchone()[0]
    assert verified > 0
