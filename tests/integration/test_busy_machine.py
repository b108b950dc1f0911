"""A busy machine fails no honest case (issue 56): the rule against work hidden outside the timer
counts only time the tree could have worked, not time it waited for a core.

tests/fixtures/outranked puts itself below every other process on the first core once its inputs
are read (nice 19), and the test keeps two spinners there, so that it waits for the core between
its lines and the kernel counts it. The honest model passes, and the models that hide 30 ms
before their timer, asleep or working, still fail: the wait is taken off the gap, never the work.
How long a wake waits is the scheduler's choice (a timer's wake waited 43 ms here, a pipe's 0.1 ms):
that the rule fails no honest line that waited is shown line by line in
tests/unit/measure/test_proofs.py and test_protocol.py."""
import os
import sqlite3
import subprocess
import sys

import pytest

from conftest import FIXTURES, REPO, require

SPIN = "import os, time; os.sched_setaffinity(0, {%d}); end = time.monotonic() + %d\nwhile time.monotonic() < end: pass"
SPIN_SECONDS, SPINNERS = 240, 2


@pytest.fixture(scope="module")
def loaded_run(tmp_path_factory) -> tuple[str, str]:
    """(the store, the console) of the fixture's three models at smoke scale beside the spinners."""
    require(hasattr(os, "sched_setaffinity") and hasattr(os, "SCHED_IDLE"), "needs Linux's scheduler calls")
    tmp = tmp_path_factory.mktemp("busy")
    root = tmp / "project"
    (root / "impls").mkdir(parents=True)
    (root / "workloads").symlink_to(REPO / "workloads")
    (root / "impls" / "outranked").symlink_to(FIXTURES / "outranked")
    db = str(tmp / "results.sqlite")
    core = sorted(os.sched_getaffinity(0))[0]
    spinners = [subprocess.Popen([sys.executable, "-c", SPIN % (core, SPIN_SECONDS)]) for _ in range(SPINNERS)]
    try:
        done = subprocess.run([sys.executable, "-m", "parbench", "run", "--workload", "spawn-chain", "--runtime",
                               "outranked", "--scale", "smoke", "--processes", "2", "--warmup", "1",
                               "--param", "n=60", "--db", db], capture_output=True, text=True,
                              env={**os.environ, "PARBENCH_ROOT": str(root)}, timeout=300, stdin=subprocess.DEVNULL)
        assert "Traceback" not in done.stdout + done.stderr, done.stderr
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    return db, done.stdout


def _case(db: str, model: str) -> tuple[str, str]:
    return sqlite3.connect(db).execute("SELECT status, reason FROM cases WHERE model = ?", (model,)).fetchone()


def test_an_honest_case_that_waited_for_a_core_between_its_lines_passes(loaded_run):
    assert _case(loaded_run[0], "honest") == ("ok", "")


def test_the_waits_the_kernel_counted_are_stored_with_each_repetition(loaded_run):
    waits = [row[0] for row in sqlite3.connect(loaded_run[0]).execute(
        "SELECT json_extract(extra_json, '$.waited_ns') FROM samples")]
    assert waits and all(isinstance(w, int) and w >= 0 for w in waits)


@pytest.mark.parametrize("model", ["sleeps-before-timer", "spins-before-timer"])
def test_work_hidden_outside_the_timer_still_fails_on_a_busy_machine(loaded_run, model):
    status, reason = _case(loaded_run[0], model)
    assert status == "bad-output" and ("unaccounted for" in reason or "cannot be that short" in reason), reason
