"""`parbench exec`: hyperfine's rules for the benchmarks a command line makes (kinds/exec/commands.py),
and the run itself: output reported and checked only when asked, the shell's start-up subtracted,
intervals named for what they are."""
import json
import sqlite3

import pytest

from conftest import parbench
from parbench.kinds.exec.commands import (ExecError, ExecOptions, commands_for, ignored_codes, scan_values,
                                          tokenize)


# --- the benchmarks a command line makes (no process is run) ---------------------------------
def _names(**options) -> list[str]:
    return [c.name for c in commands_for(ExecOptions(**options))]


def test_two_lists_make_a_product_whose_first_list_varies_fastest_and_commands_faster_still():
    commands = commands_for(ExecOptions(["A{a}{b}", "B{a}{b}"], parameter_lists=[("a", ["1", "2"]),
                                                                                  ("b", ["x", "y"])]))
    assert [c.display for c in commands] == ["A1x", "B1x", "A2x", "B2x", "A1y", "B1y", "A2y", "B2y"]


def test_a_scan_runs_every_command_at_each_value_before_the_next_value():
    assert _names(commands=["a {t}", "b {t}"], parameter_scan=("t", "1", "2")) == ["a 1", "b 1", "a 2", "b 2"]


def test_the_reference_comes_first_unsubstituted_and_named_by_reference_name():
    commands = commands_for(ExecOptions(["echo {n}"], parameter_lists=[("n", ["1"])], reference="true",
                                        reference_name="base"))
    assert [(c.name, c.number) for c in commands] == [("base", 0), ("echo 1", 1)]


def test_fewer_names_than_commands_name_the_rest_by_their_command():
    assert _names(commands=["true", "echo x", "sleep 0"], names=["t"]) == ["t", "echo x", "sleep 0"]


def test_too_many_names_are_refused_as_hyperfine_refuses_them():
    with pytest.raises(ExecError, match="Too many --command-name options: Expected 1 at most"):
        commands_for(ExecOptions(["true"], names=["a", "b"]))


def test_with_parameters_one_name_serves_all_or_there_is_one_per_benchmark():
    lists = [("n", ["1", "2"])]
    assert _names(commands=["echo {n}"], parameter_lists=lists, names=["n={n}"]) == ["n=1", "n=2"]
    with pytest.raises(ExecError, match="specified 2 times. It has to appear exactly once, or exactly 8 times"):
        commands_for(ExecOptions(["echo {n}", "true"], parameter_lists=lists + [("m", ["a", "b"])],
                                 names=["x", "y"]))


def test_an_unused_parameter_is_shown_beside_the_command_as_hyperfine_shows_it():
    [one, _] = commands_for(ExecOptions(["sleep 0"], parameter_lists=[("n", ["1", "2"])]))
    assert (one.name, one.display) == ("sleep 0", "sleep 0 (n = 1)")


@pytest.mark.parametrize("low, high, step, values", [
    ("1", "3", None, ["1", "2", "3"]),
    ("0.3", "0.7", "0.2", ["0.3", "0.5", "0.7"]),
    ("0", "1", "0.5", ["0", "0.5", "1.0"]),              # a decimal keeps its written precision, as hyperfine's
    ("1", "5", "2", ["1", "3", "5"]),
])
def test_scan_values_are_written_as_hyperfine_writes_them(low, high, step, values):
    assert scan_values(low, high, step) == values


@pytest.mark.parametrize("low, high, step, refusal", [
    ("0.01", "0.03", None, "A step size is required"),
    ("3", "1", None, "Empty parameter range"),
    ("1", "3", "0", "Zero is not a valid parameter step"),
    ("1", "3", "-1", "Parameter range is too large"),
    ("0", "200000", None, "Parameter range is too large"),
    ("x", "1", "1", "Error while parsing parameter scan arguments"),
])
def test_a_scan_hyperfine_refuses_is_refused(low, high, step, refusal):
    with pytest.raises(ExecError, match=refusal):
        scan_values(low, high, step)


def test_a_comma_list_takes_backslash_escapes_as_hyperfine():
    assert tokenize(r"a\,b,c\\,") == ["a,b", "c\\", ""]


def test_ignore_failure_takes_all_or_a_list_of_codes():
    assert ignored_codes(None) is None and ignored_codes("all-non-zero") == () and ignored_codes("1, 2") == (1, 2)
    with pytest.raises(ExecError, match="ignore-failure"):
        ignored_codes("one")


# --- a run ------------------------------------------------------------------------------------
def test_a_program_that_prints_its_own_time_is_measured_and_its_output_said_to_vary(db):
    done = parbench("exec", "-N", "-w", "2", "-r", "15", "--output=pipe", "--db", db, "date +%N", check=True)
    assert "output varies (15 different outputs in 15 runs) (read: " in done.stdout


def test_identical_output_is_reported_with_what_reading_it_cost(db):
    done = parbench("exec", "-N", "-r", "2", "--output=pipe", "--db", db, "echo same", check=True)
    assert "output identical in every run ✓ (read: 5 B a run, the launcher's CPU " in done.stdout


def test_by_default_the_output_is_not_read_and_the_exit_code_is_the_proof(db):
    done = parbench("exec", "-N", "-r", "2", "--db", db, "echo same", check=True)
    assert "output not read (--output=null: /dev/null, as hyperfine; --output=pipe digests it), exit code checked" \
        in done.stdout


def test_expect_same_turns_varied_output_into_a_failure(db):
    done = parbench("exec", "-N", "-r", "3", "--expect-same", "--db", db, "date +%N")
    assert done.returncode == 1 and "differs from the first run's (--expect-same)" in done.stdout


def test_expect_checks_every_run_against_the_text(db):
    assert parbench("exec", "-r", "2", "--expect", "42", "--db", db, "echo 42").returncode == 0
    wrong = parbench("exec", "-r", "2", "--expect", "41", "--db", db, "echo 42")
    assert wrong.returncode == 1 and "its output is not --expect's" in wrong.stdout


def test_output_varies_is_still_accepted_and_changes_nothing(db):
    parbench("exec", "-N", "-r", "2", "--output-varies", "--db", db, "date +%N", check=True)


def test_a_failing_command_exits_1_as_hyperfine(db):
    done = parbench("exec", "-r", "2", "--db", db, "exit 4")
    assert done.returncode == 1 and "exit 4" in done.stdout


def test_the_shell_start_up_is_measured_subtracted_and_said(db):
    done = parbench("exec", "-r", "2", "--db", db, "sleep 0.02", check=True)
    assert "Shell start-up (sh -c '', mean of 50 runs):" in done.stdout
    startup = json.loads(sqlite3.connect(db).execute("SELECT options_json FROM runs").fetchone()[0])["shell_startup"]
    wall, ns = sqlite3.connect(db).execute(
        "SELECT p.wall_ns, s.ns FROM processes p JOIN samples s ON s.case_id = p.case_id AND s.process_idx = p.idx "
        "WHERE p.idx = 0").fetchone()
    assert startup["runs"] == 50 and startup["wall_ns"] > 0 and ns == wall - startup["wall_ns"]


def test_no_shell_means_no_correction(db):
    done = parbench("exec", "-N", "-r", "2", "--db", db, "sleep 0.01", check=True)
    assert "Shell start-up" not in done.stdout
    assert sqlite3.connect(db).execute("SELECT COUNT(*) FROM processes p JOIN samples s ON s.case_id = p.case_id "
                                       "AND s.process_idx = p.idx WHERE s.ns != p.wall_ns").fetchone()[0] == 0


def test_below_ten_runs_the_interval_is_called_the_range(db):
    few = parbench("exec", "-N", "-r", "3", "--db", db, "true", check=True).stdout
    assert "Time (median, range):" in few and "Time (median, 95% CI)" not in few
    enough = parbench("exec", "-N", "-r", "10", "--db", db, "true", check=True).stdout
    assert "Time (median, 95% CI):" in enough
