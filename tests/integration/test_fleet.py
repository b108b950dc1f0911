"""Fleets: several machines post runs to one PostgreSQL store, and `compare --machine A --machine B`
puts the same cases side by side with each run's machine. Each "machine" here is the real
harness in a UTS namespace of its own (its own hostname), posting to the one real server."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import fresh_postgres_schema, parbench


def _run_as(hostname: str, project, db: str, delay_ms: str) -> None:
    # Not an installable part but the machine's permissions: a UTS namespace needs root, which a
    # developer's account may lack, so this skip is legitimate (scripts/setup cannot grant it).
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("needs root and unshare to give a run its own hostname")
    script = (f"hostname {hostname} && exec {sys.executable} -m parbench run --workload spawn-chain "
              f"--model ok --model slow --scale smoke --processes 3 --db '{db}'")
    done = subprocess.run(["unshare", "--uts", "sh", "-c", script], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "PARBENCH_ROOT": str(project), "FAULTY_DELAY_MS": delay_ms})
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def test_two_machines_in_one_store_are_compared_side_by_side(faulty_project):
    db = fresh_postgres_schema("fleet")
    _run_as("fleet-a", faulty_project, db, "10")
    _run_as("fleet-b", faulty_project, db, "60")
    history = parbench("history", "--db", db, root=faulty_project, check=True)
    assert history.stdout.count("complete") == 2
    done = parbench("compare", "--machine", "fleet-a", "--machine", "fleet-b", "--db", db,
                    "--fail-on-regression", "50", root=faulty_project)
    assert "A: run 1" in done.stdout and "fleet-a" in done.stdout and "B: run 2" in done.stdout and "fleet-b" in done.stdout
    assert "different machines" in done.stdout
    assert "x slower" in done.stdout and done.returncode == 1       # b's cases are slower: a regression
    unknown = parbench("compare", "--machine", "fleet-a", "--machine", "nowhere", "--db", db, root=faulty_project)
    assert unknown.returncode == 2 and "no complete run from machine 'nowhere'" in unknown.stderr
