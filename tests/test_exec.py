"""`parbench exec`: any command, measured like hyperfine, with the same honesty rules."""
import sqlite3

from conftest import parbench


def test_exec_measures_a_command_per_param_value(db):
    done = parbench("exec", "--runs", "3", "--warmup", "0", "--param-list", "n", "1,2", "--db", db,
                    "--", "sleep 0.0{n}", check=True)
    assert "sleep 0.01" in done.stdout and "sleep 0.02" in done.stdout
    assert "Comparison" in done.stdout
    samples = sqlite3.connect(db).execute("SELECT COUNT(*) FROM samples WHERE verified = 1").fetchone()[0]
    assert samples == 6


def test_exec_peak_rss_is_the_commands_own_not_the_harness(db):
    parbench("exec", "--runs", "2", "--db", db, "--", "true", check=True)
    rss = max(r for (r,) in sqlite3.connect(db).execute("SELECT max_rss_kb FROM processes"))
    assert rss < 8 * 1024        # `true` is a few MiB at most; the Python harness is ~40 MiB


def test_exec_rejects_a_failing_command(db):
    done = parbench("exec", "--runs", "2", "--db", db, "--", "exit 4")
    assert done.returncode == 3          # a case that failed: exit 3, one meaning per exit code
    assert "crash" in done.stdout and "exit 4" in done.stdout


def test_exec_rejects_output_that_changes_between_runs(db):
    done = parbench("exec", "--runs", "3", "--db", db, "--", "date +%N")
    assert done.returncode == 3 and "differs from the first run" in done.stdout
    accepted = parbench("exec", "--runs", "3", "--output-varies", "--db", db, "--", "date +%N")
    assert accepted.returncode == 0


def test_exec_checks_expected_output(db):
    assert parbench("exec", "--runs", "2", "--expect", "42", "--db", db, "--", "echo 42").returncode == 0
    assert parbench("exec", "--runs", "2", "--expect", "41", "--db", db, "--", "echo 42").returncode == 3


def test_param_list_needs_its_placeholder(db):
    done = parbench("exec", "--param-list", "n", "1,2", "--db", db, "--", "sleep 0")
    assert done.returncode == 2 and "has no {n} to substitute" in done.stderr
