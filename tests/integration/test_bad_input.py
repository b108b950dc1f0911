"""Every bad input found by the adversarial run: one line, exit 2, no run stored, no traceback."""
import os
import sqlite3
import subprocess

import pytest

from conftest import parbench

BAD = [
    ("run", "--workload", "spawn-chain", "--param", "n=abc"),
    ("run", "--workload", "spawn-chain", "--param", "n="),
    ("run", "--workload", "spawn-chain", "--param", "n=10**12"),
    ("run", "--workload", "spawn-chain", "--param", "n=10,,20"),
    ("run", "--workload", "spawn-chain", "--param", "n=-5"),
    ("run", "--workload", "sdes-ecb", "--param", "size=-1"),
    ("run", "--workload", "batch-job", "--param", "db=junk"),
    ("run", "--timeout", "1e12"), ("run", "--timeout", "inf"), ("run", "--timeout", "nan"),
    ("run", "--memory-limit", "lots"), ("run", "--order", "backwards"), ("run", "--bogus"),
    ("run", "--workload", "spawn-chain", "--out", "/proc/parbench-cannot-write-here"),
    ("show", "latest~abc"), ("show", "abc"),
    ("sweep", "size", "--workload", "spawn-chain", "--from", "64", "--to", "10"),
    ("sweep", "size", "--workload", "spawn-chain", "--from", "-5"),
    ("sweep", "size", "--workload", "spawn-chain", "--from", "0"),
    ("sweep", "tasks", "--workload", "spawn-chain", "--counts", "abc"),
    ("exec", "--runz", "3", "--", "true"),
]


def _one_line(text: str) -> bool:
    return len([line for line in text.splitlines() if line.strip()]) == 1


@pytest.mark.parametrize("args", BAD, ids=" ".join)
def test_a_bad_input_is_one_line_and_exit_2_and_stores_nothing(faulty_project, db, args):
    parbench("run", "--workload", "spawn-chain", "--model", "ok", "--scale", "smoke", "--db", db,
             root=faulty_project, check=True)            # one good run, so `show` has something
    done = parbench(args[0], "--db", db, *args[1:], root=faulty_project)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert _one_line(done.stderr), done.stderr
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1


def test_messages_name_the_option_that_is_wrong(faulty_project, db):
    assert "--counts wants" in parbench("sweep", "tasks", "--workload", "spawn-chain", "--counts", "abc",
                                        "--db", db, root=faulty_project).stderr
    assert "--param n wants" in parbench("run", "--workload", "spawn-chain", "--param", "n=-5",
                                         "--db", db, root=faulty_project).stderr


@pytest.mark.parametrize("target", ["mysql://user:secret@host/db", "postgresq://user:secret@host/db"])
def test_a_db_url_parbench_does_not_know_is_refused_not_made_a_file(faulty_project, tmp_path, target):
    done = parbench("history", "--db", target, root=faulty_project)
    assert done.returncode == 2 and "not a store parbench knows" in done.stderr
    assert "secret" not in done.stderr               # the password is never printed
    assert not os.path.exists(target.split("://")[0] + ":")     # no stray local "file" named after the URL


def test_a_db_under_an_unwritable_parent_is_one_line(faulty_project):
    done = parbench("history", "--db", "/proc/parbench/none/results.sqlite", root=faulty_project)
    # a reader makes no store: the one line says there is none, and nothing was created
    assert done.returncode == 2 and _one_line(done.stderr) and "no results store at" in done.stderr
    run = parbench("run", "--workload", "spawn-chain", "--model", "ok", "--scale", "smoke",
                   "--db", "/proc/parbench/none/results.sqlite", root=faulty_project)
    assert run.returncode == 2 and _one_line(run.stderr) and "cannot open the results database" in run.stderr


def test_sqlite_urls_and_plain_paths_are_the_same_store(faulty_project, tmp_path):
    path = tmp_path / "same.sqlite"
    parbench("run", "--workload", "spawn-chain", "--model", "ok", "--scale", "smoke", "--db", f"sqlite:///{path}",
             root=faulty_project, check=True)
    assert "complete" in parbench("history", "--db", str(path), root=faulty_project, check=True).stdout


def test_resuming_a_sweep_or_an_exec_run_is_one_line(faulty_project, db):
    parbench("exec", "--runs", "2", "--db", db, "--", "true", root=faulty_project, check=True)
    done = parbench("run", "--resume", "1", "--db", db, root=faulty_project)
    assert done.returncode == 2 and "is an exec run" in done.stderr and _one_line(done.stderr)


def test_a_full_disk_while_an_input_is_made_says_so_and_leaves_nothing(tmp_path):
    mount = tmp_path / "small"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a small tmpfs here")
    try:
        db = str(tmp_path / "results.sqlite")
        # The real project and its Python runtime; the inputs' cache on a disk too small for 1 MiB.
        done = parbench("run", "--runtime", "python", "--workload", "sdes-ecb", "--scale", "smoke",
                        "--db", db, env={"PARBENCH_CACHE": str(mount / "inputs")})
        # Refused before the input is written, with the figures (issue 28); exit 2, nothing stored.
        assert done.returncode == 2, done.stdout + done.stderr
        assert "Traceback" not in done.stderr and _one_line(done.stderr)
        assert "needs 1 MiB of disk" in done.stderr and "free" in done.stderr
        assert not list(mount.rglob("*.tmp"))
        assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0
    finally:
        subprocess.run(["umount", str(mount)], capture_output=True)
