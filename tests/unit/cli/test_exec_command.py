"""cli/exec_command.py: hyperfine's command line, in process (click's CliRunner): its usage errors
exit 2, what it refuses after parsing exits 1, `-i 'cmd'` is the flag and a command, and a run of
`true` / `false` under the launcher exits as hyperfine would."""
import json

import pytest
from click.testing import CliRunner

from parbench.cli import exec_command
from parbench.cli.exec_command import HyperfineCommand, command


def invoke(*args: str, db: str | None = None):
    extra = ("--db", db) if db else ()
    return CliRunner().invoke(command, [*args, *extra])


@pytest.mark.parametrize("args, conflict", [
    (("--runs", "2", "--min-runs", "3"), "'--runs' cannot be used with '--min-runs'"),
    (("--runs", "2", "--max-runs", "3"), "'--runs' cannot be used with '--max-runs'"),
    (("-L", "n", "1", "-P", "m", "1", "2"), "'--parameter-list' cannot be used with '--parameter-scan'"),
    (("-N", "--shell", "bash"), "'-N' cannot be used with '--shell'"),
    (("--show-output", "--style", "basic"), "'--show-output' cannot be used with '--style'"),
    (("-D", "0.5",), "--parameter-step-size requires --parameter-scan"),
    (("--reference-name", "r",), "--reference-name requires --reference")])
def test_flags_hyperfine_does_not_allow_together_are_a_usage_error(args, conflict):
    done = invoke(*args, "true")
    assert done.exit_code == 2 and conflict in done.output


@pytest.mark.parametrize("args, named", [
    (("-r", "3", "-r", "5"), "'--runs <RUNS>' cannot be used multiple times"),
    (("--runs=3", "-r5"), "'--runs <RUNS>' cannot be used multiple times"),
    (("-w", "1", "--warmup", "2"), "cannot be used multiple times (-w and --warmup)"),
    (("--shell", "bash", "-S", "zsh"), "cannot be used multiple times (--shell and -S)")])
def test_an_option_of_one_value_given_twice_is_a_usage_error_as_in_hyperfine(args, named):
    # click would keep the last and drop the first without a word.
    done = invoke(*args, "true")
    assert done.exit_code == 2 and named in done.output, done.output


def test_options_made_to_repeat_and_a_value_that_looks_like_an_option_are_taken():
    assert "cannot be used multiple times" not in invoke("-p", "true", "-p", "true", "-r", "1", "true", "true").output
    assert "cannot be used multiple times" not in invoke("--shell", "-r", "-r", "1", "true").output


def test_showing_the_output_beside_an_export_to_standard_output_is_a_usage_error():
    done = invoke("--show-output", "--export-json", "-", "true")
    assert done.exit_code == 2 and "--export-json - writes the export to standard output" in done.output


@pytest.mark.parametrize("args, refusal", [
    (("--min-runs", "5", "--max-runs", "2"), "min is larger than max"),
    (("-P", "x", "5", "1"), "Empty parameter range"),
    (("-n", "a", "-n", "b"), "Too many --command-name"),
    (("--ignore-failure=1,x",), "--ignore-failure")])
def test_what_hyperfine_refuses_after_parsing_exits_1_in_one_line(args, refusal):
    done = invoke(*args, "true")
    assert done.exit_code == 1 and refusal in done.output and "Traceback" not in done.output


def test_a_value_that_no_command_line_can_carry_is_a_usage_error():
    done = invoke("-L", "x", "a\x00b", "echo {x}")
    assert done.exit_code == 2 and "NUL byte" in done.output


def test_no_command_is_a_usage_error():
    assert invoke().exit_code == 2


def test_ignore_failure_takes_codes_only_after_an_equals_sign():
    parse = lambda *args: HyperfineCommand("exec", params=command.params).make_context("exec", list(args)).params
    assert parse("-i", "exit 1")["ignore_failure"] and parse("-i", "exit 1")["commands"] == ("exit 1",)
    assert parse("--ignore-failure=1,2", "x")["ignore_failure_codes"] == "1,2"
    assert parse("-i=3", "x")["ignore_failure_codes"] == "3"
    assert parse("--", "-i=3")["commands"] == ("-i=3",)


def test_the_flags_become_exec_options_as_hyperfine_means_them():
    given = HyperfineCommand("exec", params=command.params).make_context("exec", [
        "-N", "-i", "--show-output", "-L", "n", "1\\,5,2", "--param-list", "m", "a", "-n", "x {n}", "cmd {n}"]).params
    options = exec_command._options(given)
    assert options.shell == "none" and options.ignore_failure == "all-non-zero" and options.output == ["inherit"]
    assert options.parameter_lists == [("n", ["1,5", "2"]), ("m", ["a"])] and options.names == ["x {n}"]


def test_every_export_format_has_its_flag_and_hyperfines_markdown_is_the_table():
    names = {option.name for option in command.params}
    assert {"export_json", "export_csv", "export_markdown", "export_hyperfine_markdown"} <= names
    flags = {flag for option in command.params for flag in option.opts}
    assert "--export-markdown" in flags and "--export-report" in flags


def test_commands_that_succeed_exit_0_and_export_hyperfines_fields(tmp_path):
    done = invoke("-N", "--runs", "2", "--export-json", str(tmp_path / "e.json"), "true", "false -x", "-i",
                  db=str(tmp_path / "s.sqlite"))
    assert done.exit_code == 0, done.output
    results = json.loads((tmp_path / "e.json").read_text())["results"]
    assert [r["command"] for r in results] == ["true", "false -x"] and len(results[0]["times"]) == 2
    assert results[1]["exit_codes"] == [1, 1]


def test_a_command_that_fails_exits_1_as_in_hyperfine(tmp_path):
    done = invoke("-N", "--runs", "2", "--style", "none", "false", db=str(tmp_path / "s.sqlite"))
    assert done.exit_code == 1
