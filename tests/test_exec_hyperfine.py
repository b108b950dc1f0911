"""`parbench exec` as a drop-in for hyperfine: every flag against real commands, the comparison
with CIs, values that never reach a shell unquoted, and the exit codes one by one."""
import json
import os
import signal
import sqlite3
import subprocess
import sys

import pytest

from conftest import default_sigint, parbench


def _samples(db: str) -> dict[str, int]:
    return dict(sqlite3.connect(db).execute(
        "SELECT c.model, COUNT(*) FROM samples s JOIN cases c ON c.id = s.case_id WHERE s.verified = 1 "
        "GROUP BY c.model").fetchall())


def test_several_commands_are_compared_with_cis_and_names(db):
    done = parbench("exec", "-r", "4", "-n", "short", "-n", "long", "--db", db, "sleep 0.01", "sleep 0.2", check=True)
    assert "Benchmark 1: short (sleep 0.01)" in done.stdout and "Benchmark 2: long (sleep 0.2)" in done.stdout
    assert "'short' ran" in done.stdout and "x faster than 'long' [" in done.stdout
    assert _samples(db) == {"short": 4, "long": 4}


def test_the_reference_is_the_baseline_of_the_comparison(db):
    done = parbench("exec", "-r", "4", "--reference", "sleep 0.2", "--db", db, "sleep 0.01", check=True)
    assert "'sleep 0.2' ran" in done.stdout and "x slower than 'sleep 0.01'" in done.stdout


def test_runs_of_several_commands_take_turns(db):
    parbench("exec", "-r", "3", "--db", db, "true", "echo x", check=True)
    order = [m for (m,) in sqlite3.connect(db).execute(
        "SELECT c.model FROM processes p JOIN cases c ON c.id = p.case_id WHERE p.idx >= 0 ORDER BY p.seq")]
    assert order == ["true", "echo x"] * 3


def test_warmup_runs_are_run_and_not_counted(db, tmp_path):
    counter = tmp_path / "count"
    parbench("exec", "-w", "2", "-r", "3", "--output-varies", "--db", db, f"echo x >> {counter}", check=True)
    assert len(counter.read_text().splitlines()) == 5 and sum(_samples(db).values()) == 3


def test_min_and_max_runs(db):
    parbench("exec", "-m", "3", "-M", "4", "--db", db, "true", check=True)
    assert 3 <= sum(_samples(db).values()) <= 4
    refused = parbench("exec", "-m", "5", "-M", "3", "--db", db, "true")
    assert refused.returncode == 2 and "--max-runs (3) is below --min-runs (5)" in refused.stderr


def test_parameter_lists_make_a_product_and_a_scan_has_a_step(db):
    done = parbench("exec", "-r", "2", "-L", "a", "1,2", "-L", "b", "x,y", "--db", db, "echo {a}{b}", check=True)
    assert set(_samples(db)) == {"echo 1x", "echo 1y", "echo 2x", "echo 2y"}
    scan_db = db + ".scan"
    parbench("exec", "-r", "2", "-P", "t", "0", "1", "-D", "0.5", "--db", scan_db, "echo {t}", check=True)
    assert set(_samples(scan_db)) == {"echo 0", "echo 0.5", "echo 1"}
    assert "echo 1y" in done.stdout


def test_prepare_setup_cleanup_and_conclude_run_when_hyperfine_runs_them(db, tmp_path):
    log = tmp_path / "log"
    parbench("exec", "-r", "3", "-p", f"echo prepare >> {log}", "-s", f"echo setup >> {log}",
             "-c", f"echo cleanup >> {log}", "--conclude", f"echo conclude >> {log}", "--db", db, "true", check=True)
    lines = log.read_text().split()
    assert lines[0] == "setup" and lines[-1] == "cleanup"
    assert lines.count("prepare") == 3 and lines.count("conclude") == 3 and lines.count("setup") == 1


def test_no_shell_runs_words_directly_and_another_shell_can_be_named(db):
    parbench("exec", "-N", "-r", "2", "--expect", "a b", "--db", db, "echo 'a b'", check=True)
    parbench("exec", "-S", "bash", "-r", "2", "--expect", "bash", "--db", db + ".2", 'echo "${BASH_VERSION:+bash}"',
             check=True)


def test_substituted_values_never_run_as_shell_syntax(db, tmp_path):
    planted = tmp_path / "pwned"
    value = f"$(touch {planted});`touch {planted}`;' ; touch {planted}"
    done = parbench("exec", "-r", "2", "-L", "v", value, "--expect", value, "--db", db, "echo {v}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not planted.exists()


def test_ignore_failure_counts_runs_that_exit_non_zero(db):
    assert parbench("exec", "-r", "2", "--db", db, "exit 1").returncode == 3
    parbench("exec", "-r", "2", "-i", "--db", db + ".2", "exit 1", check=True)


def test_show_output_and_time_unit(db):
    done = parbench("exec", "-r", "2", "--show-output", "-u", "millisecond", "--db", db, "echo visible-output",
                    check=True)
    assert "visible-output" in done.stdout and " ms" in done.stdout.split("Time (median")[1].splitlines()[0]


def test_exports_to_files_and_to_standard_output(db, tmp_path):
    out = tmp_path / "out"
    parbench("exec", "-r", "3", "--export-json", str(out / "r.json"), "--export-csv", str(out / "r.csv"),
             "--export-markdown", str(out / "r.md"), "--export-csv-samples", str(out / "s.csv"),
             "--db", db, "true", check=True)
    data = json.loads((out / "r.json").read_text())
    first = data["results"][0]
    for field in ("command", "mean", "stddev", "median", "user", "system", "min", "max", "times", "exit_codes",
                  "parameters"):
        assert field in first                         # hyperfine's names, for hyperfine's scripts
    assert first["command"] == "true" and len(first["times"]) == 3 and first["exit_codes"] == [0, 0, 0]
    assert (out / "r.csv").read_text().startswith("command,mean,stddev,median,user,system,min,max")
    assert len((out / "s.csv").read_text().splitlines()) == 1 + 3
    assert "| true |" in (out / "r.md").read_text()
    piped = parbench("exec", "-r", "2", "--export-json", "-", "--db", db, "true", check=True)
    assert '"schema_version": 1' in piped.stdout


def test_exec_interrupted_is_exit_130(db):
    child = subprocess.Popen([sys.executable, "-m", "parbench", "exec", "-r", "50", "--db", db, "sleep 1"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    deadline = __import__("time").time() + 60
    while __import__("time").time() < deadline:
        try:
            if sqlite3.connect(db).execute("SELECT COUNT(*) FROM processes").fetchone()[0] >= 1:
                break
        except sqlite3.Error:
            pass
        __import__("time").sleep(0.2)
    child.send_signal(signal.SIGINT)
    child.communicate(timeout=60)
    assert child.returncode == 130
