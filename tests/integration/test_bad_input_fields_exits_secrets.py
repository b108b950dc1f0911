"""One test per class of issue 59, each failing without its fix: inputs that are not files or
never end, warm-up fields beyond their process, exit codes and export targets, a password in a
message, a store that turns read-only under a run, messages that said the wrong thing, and a
value handed to a shell through another program's input. (Class 1, sweep values, is in
test_exec_fit.py.)"""
from __future__ import annotations

import dataclasses
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import parbench, wait_until_stored
from parbench.store import open_store
from parbench.store.sink import Journal


def _one_line(done, code: int = 2) -> str:
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    return done.stderr


def _not_a_file(tmp_path: Path, kind: str, name: str) -> Path:
    path = tmp_path / name
    if kind == "fifo":
        os.mkfifo(path)          # no writer: reading it would wait forever
    else:
        # A device: /dev/zero would be endless; /dev/null is one too, and a regression reads it
        # as empty rather than filling this machine's memory.
        path.symlink_to("/dev/null")
    return path


# 2. What parbench reads at a path a user named is a regular file.
@pytest.mark.parametrize("kind, said", [("fifo", "a FIFO"), ("device", "a character device")])
def test_a_journal_or_an_export_that_is_not_a_regular_file_is_one_line(tmp_path, kind, said):
    journal = _not_a_file(tmp_path, kind, "run.jsonl")
    assert f"{said}, not a regular file" in _one_line(parbench("load", str(journal), "--db", str(tmp_path / "s.sqlite"),
                                                               timeout=60))
    assert not (tmp_path / "s.sqlite").exists()
    export = _not_a_file(tmp_path, kind, "a.json")
    assert f"{said}, not a regular file" in _one_line(parbench("compare", str(export), str(export), timeout=60))


# 3. The warm-up's figures are bounded by their process as ns is.
def _journal_with(tmp_path: Path, **extra) -> Path:
    """A real run's journal whose every process's first repetition carries these harness fields."""
    db = str(tmp_path / "source.sqlite")
    parbench("exec", "-N", "-r", "2", "--db", db, "true", check=True)
    record = open_store(db).load_run(1)
    journal = Journal(tmp_path / "run-1.jsonl", dataclasses.replace(record, results=[]))
    for result in record.results:
        for rep in result.run.repetitions:
            if rep.rep == 0:
                rep.extra.update(extra)
        journal.append(result.run)
    return journal.path


@pytest.mark.parametrize("field, value, said", [
    ("first_ns", 9 * 10 ** 18, "first_ns = 9000000000000000000, outside 1 … its process's wall_ns"),
    ("first_ns", 0, "first_ns = 0, outside 1"),
    ("warmup_reps", -4, "warmup_reps = -4, not a count of warm-up repetitions"),
])
def test_a_journal_whose_warm_up_figures_no_process_could_give_stores_nothing(tmp_path, field, value, said):
    journal = _journal_with(tmp_path, **{field: value})
    target = tmp_path / "target.sqlite"
    assert said in _one_line(parbench("load", str(journal), "--db", str(target)))
    assert not target.exists()


# 4. One exit code per class; export targets given twice or shared refused before the run.
@pytest.mark.parametrize("fit, values", [("count", "1,nan"), ("workers", "2,4"), ("speed", "1,2")])
def test_an_exec_fit_refused_before_anything_runs_exits_2_as_every_refusal(tmp_path, fit, values):
    db = tmp_path / "s.sqlite"
    _one_line(parbench("exec", "-N", "--fit", fit, "-L", "n", values, "--db", str(db), "true {n}"), code=2)
    assert not db.exists()


@pytest.mark.parametrize("command", [["exec", "-N", "-r", "2", "true"], ["run", "--workload", "noop"]])
def test_an_export_flag_given_twice_is_refused_as_hyperfine_refuses_it(tmp_path, command):
    first, second, db = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "s.sqlite"
    error = _one_line(parbench(*command, "--export-json", str(first), "--export-json", str(second), "--db", str(db)))
    assert "'--export-json <FILE>' cannot be used multiple times" in error
    assert not first.exists() and not second.exists() and not db.exists()


def test_report_html_given_twice_is_refused_and_writes_neither(tmp_path):
    db = str(tmp_path / "s.sqlite")
    parbench("exec", "-N", "-r", "2", "--db", db, "true", check=True)
    first, second = tmp_path / "a.html", tmp_path / "b.html"
    error = _one_line(parbench("report", "--html", str(first), "--html", str(second), "--db", db))
    assert "'--html <FILE>' cannot be used multiple times" in error and not first.exists() and not second.exists()


def test_two_exports_to_one_file_by_any_path_are_refused_before_the_run(tmp_path):
    target, db = tmp_path / "r.out", tmp_path / "s.sqlite"
    (tmp_path / "link").symlink_to(target)
    for other in (str(target), str(tmp_path / "link"), f"{tmp_path}/./r.out"):
        error = _one_line(parbench("exec", "-N", "-r", "2", "--export-json", str(target), "--export-csv", other,
                                   "--db", str(db), "true"))
        assert "--export-json and --export-csv write to one file" in error
    assert not target.exists() and not db.exists()
    # Named by exec's own flags: --export-markdown is hyperfine's table, --export-report parbench's.
    error = _one_line(parbench("exec", "-N", "-r", "2", "--export-markdown", str(target), "--export-report",
                               str(target), "--db", str(db), "true"))
    assert "--export-markdown and --export-report write to one file" in error
    # --out's report.json and report.md are exports too.
    error = _one_line(parbench("exec", "-N", "-r", "2", "--out", str(tmp_path / "out"), "--export-json",
                               str(tmp_path / "out" / "report.json"), "--db", str(db), "true"))
    assert "--export-json and --out's report.json write to one file" in error and not db.exists()
    # A character device takes both, as `>` would.
    done = parbench("exec", "-N", "-r", "2", "--export-json", "/dev/null", "--export-csv", "/dev/null", "--db", str(db), "true")
    assert done.returncode == 0, done.stderr


# 5. No piece of a store's password in any message.
PASSWORD = "Qx%ZZj7@Wv/k9%4"        # malformed escapes (%ZZ, a lone %4), an @ and a / inside
SECRET_BEARING = [                   # every command that opens --db, with what it needs of its own
    ["history"], ["show", "1"], ["compare", "1", "2"], ["advise", "--exec", "1"],
    ["exec", "-N", "-r", "1", "true"], ["run", "--workload", "noop", "--scale", "smoke"],
]


def _pieces(secret: str, size: int = 3) -> set[str]:
    return {secret[i:i + size] for i in range(len(secret) - size + 1)}


@pytest.mark.parametrize("command", SECRET_BEARING, ids=lambda c: c[0])
def test_no_piece_of_a_password_with_malformed_escapes_is_in_any_output(tmp_path, command):
    # Both places a URL holds a password, in one URL: one parbench start per command.
    url = f"postgresql://u:{PASSWORD}@127.0.0.1:1/db?sslmode=disable&password={PASSWORD}"
    done = parbench(*command, "--db", url, timeout=120)
    said = done.stdout + done.stderr
    assert done.returncode != 0 and "Traceback" not in said, said
    assert not {p for p in _pieces(PASSWORD) if p in said}, said


def test_nor_in_a_journals_load(tmp_path):
    journal = _journal_with(tmp_path)
    done = parbench("load", str(journal), "--db", f"postgresql://u:{PASSWORD}@127.0.0.1:1/db", timeout=120)
    said = done.stdout + done.stderr
    assert done.returncode != 0 and not {p for p in _pieces(PASSWORD) if p in said}, said


# 6. A store turned read-only underneath a run.
def test_a_store_made_immutable_under_a_run_ends_with_one_line_the_journal_and_resume(faulty_project, tmp_path):
    """SQLite writes its -shm file through a shared mapping: chattr +i on it killed parbench with
    SIGBUS (exit 135, no line). The run now ends with the journal, `load` and `--resume` named."""
    db = str(tmp_path / "s.sqlite")
    env = {**os.environ, "PARBENCH_ROOT": str(faulty_project), "FAULTY_DELAY_MS": "300"}
    child = subprocess.Popen([sys.executable, "-m", "parbench", "run", "--workload", "spawn-chain", "--scale", "smoke",
                              "--model", "ok", "--processes", "3", "--db", db], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    wait_until_stored(db, "SELECT COUNT(*) FROM cases")
    frozen_file = db + "-shm"
    assert subprocess.run(["chattr", "+i", frozen_file]).returncode == 0, "the test needs root and ext4's flags"
    try:
        out, err = child.communicate(timeout=300)
    finally:
        subprocess.run(["chattr", "-i", frozen_file])
    assert child.returncode == 1, (child.returncode, err)
    assert "Traceback" not in err and "stored as run" not in out + err
    assert "turned immutable (chattr +i) underneath this run" in err, err
    assert "parbench load " in err and "parbench run --resume 1" in err, err
    resumed = parbench("run", "--resume", "1", "--db", db, root=faulty_project, env={"FAULTY_DELAY_MS": "0"})
    assert resumed.returncode == 0, resumed.stderr
    assert sqlite3.connect(db).execute("SELECT status FROM runs WHERE id = 1").fetchone()[0] == "complete"


# 7. Messages that say what happened.
@pytest.mark.parametrize("helper", ["--check", "--prepare-once", "--prepare"])
def test_a_helper_killed_at_the_timeout_is_said_to_have_timed_out(tmp_path, helper):
    done = parbench("exec", "-N", "-r", "1", "--timeout", "1", helper, "sleep 60", "--db", str(tmp_path / "s.sqlite"),
                    "echo a", timeout=120)
    said = done.stdout + done.stderr
    assert done.returncode == 1 and f"The {helper[2:]} command timed out: killed after 1 s (--timeout)" in said, said
    assert "non-zero exit code (None)" not in said


def test_after_a_killed_exec_the_next_command_says_it_cannot_be_resumed_rather_than_run_resume(tmp_path):
    db = str(tmp_path / "s.sqlite")
    child = subprocess.Popen([sys.executable, "-m", "parbench", "exec", "-N", "-r", "20", "--fit", "count", "-L", "n",
                              "1,2", "--db", db, "sleep 0.2"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until_stored(db, "SELECT COUNT(*) FROM cases")
    child.kill()
    child.wait(30)
    done = parbench("history", "--db", db)
    assert "run 1 was interrupted" in done.stderr, done.stderr
    assert "an exec run cannot be resumed" in done.stderr and "start the exec again" in done.stderr
    assert "--resume" not in done.stderr


def test_advise_given_one_run_twice_refuses_rather_than_compare_it_with_itself(tmp_path):
    db = str(tmp_path / "s.sqlite")
    parbench("exec", "-N", "-r", "2", "--fit", "workers", "-L", "w", "1,2", "--db", db, "true {w}", check=True)
    for twice in (["1", "1"], ["1", "latest"]):
        error = _one_line(parbench("advise", "--exec", twice[0], "--exec", twice[1], "--db", db))
        assert f"run 1 is given 2 times ({', '.join(twice)})" in error
