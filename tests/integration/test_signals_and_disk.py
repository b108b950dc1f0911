"""Every way a run can be stopped (docs/reliability.md): Ctrl-C once or twice, SIGTERM while the
reports are written, a full disk under --out. Each ends with its signal's exit code and a line
naming the stored run and how to go on; no report is left half-written."""
import fcntl
import os
import signal
import sqlite3
import subprocess
import sys
import time

from conftest import default_sigint, fill_disk, parbench, small_tmpfs, wait_until_stored

F_SETPIPE_SZ = 1031


def _start(project, db, *args, env=None, stdout=subprocess.PIPE):
    env = {**os.environ, "PARBENCH_ROOT": str(project), **(env or {})}
    return subprocess.Popen([sys.executable, "-m", "parbench", "run", "--workload", "spawn-chain",
                             "--scale", "smoke", "--db", db, *args], env=env, stdout=stdout,
                            stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)


def test_two_ctrl_c_300_ms_apart_exit_130_with_the_resume_line(faulty_project, db):
    child = _start(faulty_project, db, "--model", "ok", "--model", "slow", "--processes", "3",
                   env={"FAULTY_DELAY_MS": "300", "FAULTY_SLOW_FACTOR": "1000"})
    wait_until_stored(db, "SELECT COUNT(*) FROM cases WHERE model = 'ok'")
    child.send_signal(signal.SIGINT)
    time.sleep(0.3)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 130, err
    assert "Resume with: parbench run --resume 1" in err
    assert "Traceback" not in err
    assert sqlite3.connect(db).execute("SELECT status FROM runs").fetchone()[0] == "interrupted"


def test_sigterm_while_the_report_is_written_exits_143_naming_the_stored_run(faulty_project, db):
    # The report goes to a pipe nobody reads (4 KiB deep): parbench blocks while writing it.
    read_end, write_end = os.pipe()
    fcntl.fcntl(read_end, F_SETPIPE_SZ, 4096)
    child = _start(faulty_project, db, "--model", "ok", "--export-json", "-", stdout=write_end)
    os.close(write_end)
    wait_until_stored(db, "SELECT COUNT(*) FROM runs WHERE status = 'complete'")
    time.sleep(1.0)
    child.send_signal(signal.SIGTERM)
    with os.fdopen(read_end) as report:
        report.read()
    err = child.stderr.read()
    child.wait(60)
    assert child.returncode == 143, err
    assert "Interrupted: run 1 is stored" in err and "parbench show 1" in err
    assert "Traceback" not in err


def test_out_on_a_full_disk_leaves_no_half_report_and_names_the_run(faulty_project, db, tmp_path):
    with small_tmpfs(tmp_path / "small", "64k") as mount:
        fill_disk(mount)
        done = parbench("run", "--workload", "spawn-chain", "--model", "ok", "--scale", "smoke", "--db", db,
                        "--out", str(mount / "reports"), root=faulty_project)
        assert done.returncode == 1, done.stderr
        assert "the run is stored as run 1" in done.stderr and "parbench show 1" in done.stderr
        assert "Traceback" not in done.stderr
        left = sorted(p.name for p in (mount / "reports").iterdir())
        assert left == [], left                        # no report.json cut short, no temporary file
        assert sqlite3.connect(db).execute("SELECT status FROM runs").fetchone()[0] == "complete"


def test_a_run_whose_disk_fills_before_its_cases_are_stored_says_how_many_are_and_where_the_rest_are(
        faulty_project, tmp_path):
    """Issue 46: 0 of 5 cases stored, all kept in the journal, and then "stored as run 4"; issue 59:
    and exit 0."""
    with small_tmpfs(tmp_path / "small", "256k") as mount:
        db = str(mount / "full.sqlite")
        child = _start(faulty_project, db, "--model", "ok", "--processes", "3", env={"FAULTY_DELAY_MS": "300"})
        wait_until_stored(db, "SELECT COUNT(*) FROM runs")
        fill_disk(mount)
        out, err = child.communicate(timeout=120)
        assert "Traceback" not in err, err
        assert "stored as run" not in out + err, out + err
        assert " cases stored in run 1 of " in err and "are in the journal " in err, err
        assert "them when there is room" in err and "parbench load " in err, err
        assert child.returncode == 1, err          # issue 59: work that could not be stored exits 1, not 0


def test_sigterm_while_report_html_writes_exits_143_with_a_line(tmp_path):
    """Issue 46: SIGTERM during `report --html` exited 143 and kept the old file, but said nothing."""
    db = str(tmp_path / "s.sqlite")
    parbench("exec", "-N", "-r", "2", "true", "--db", db, check=True)
    page = tmp_path / "page.html"
    os.mkfifo(page)                     # nobody reads it: the report blocks in writing it
    child = subprocess.Popen([sys.executable, "-m", "parbench", "report", "--html", str(page), "--db", db],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(3)
    child.send_signal(signal.SIGTERM)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 143, err
    assert "interrupted (SIGTERM) before" in err and str(page) in err and "Traceback" not in err
