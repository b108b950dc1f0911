"""One sitting, its noise shown: the drift sentinel's readings between tables make a report say
how far the machine drifted, and mark the tables measured while a CPU hog ran beside them."""
import json
import os
import signal
import subprocess
import sys

from conftest import wait_until_stored


def _hog() -> list[subprocess.Popen]:
    """Two busy loops a core: the sentinel's single thread keeps well under half a core."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
            for _ in range(2 * max(2, os.cpu_count() or 2))]


def _sentinel(db: str, position: int) -> str:
    return f"SELECT count(*) FROM analyses WHERE kind = 'sentinel' AND subject = '{position}'"


def test_a_cpu_hog_in_the_middle_of_a_run_marks_the_tables_it_overlapped(faulty_project, db, tmp_path):
    env = {**os.environ, "PARBENCH_ROOT": str(faulty_project), "FAULTY_DELAY_MS": "40"}
    out = tmp_path / "out"
    run = subprocess.Popen([sys.executable, "-m", "parbench", "run", "--workload", "spawn-chain", "--model", "ok",
                            "--runtime", "faulty", "--scale", "smoke", "--processes", "2", "--db", db,
                            "--param", "n=50,60,70,80,90,100", "--out", str(out)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    hogs = []
    try:
        wait_until_stored(db, _sentinel(db, 1))        # the first table measured on a quiet machine
        hogs = _hog()
        wait_until_stored(db, _sentinel(db, 3))        # two more tables with the hog beside them
    finally:
        for hog in hogs:
            os.killpg(hog.pid, signal.SIGKILL)
            hog.wait()
    stdout, stderr = run.communicate(timeout=300)
    assert run.returncode == 0, stderr
    report = json.loads((out / "report.json").read_text())
    markdown = (out / "report.md").read_text()
    assert "Machine drift " in markdown and "over this sitting" in markdown
    drift = next(a for a in report["analyses"] if a["kind"] == "drift")["result"]
    assert drift["cpu_spread"] > 0.05
    flagged = drift["off_tables"]

    def off(n: int) -> float:
        return flagged.get(f"spawn-chain n={n}", 0.0)
    assert off(70) > 0.05, flagged                 # the sentinel was read under the hog on both sides
    assert min(off(90), off(100)) < off(70), "the tables after the hog look as off as the one beside it"
    shown_as_tables = [table for table in flagged if table != "noop"]   # noop: the start-up table
    assert markdown.count("⚠ measured while the machine was off by") == len(shown_as_tables)
