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
    assert done.returncode == 0, f"{name} tests failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"


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
