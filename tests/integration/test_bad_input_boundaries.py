"""One test per class of issue 28 that failed before its fix: text from outside printed as console
markup, numbers that were not checked, a protocol reader without bounds, `exec` values run as
shell code inside quotes, a password in error lines, exports that other tools misread."""
from __future__ import annotations

import csv
import io
import json
import os
import sqlite3
import subprocess
import time

import pytest
from click.testing import CliRunner

from parbench.cli import commands as cli
from parbench.escaping import csv_cell, json_text, markdown_cell
from parbench.kinds.exec.commands import ExecError, ExecOptions, commands_for, parameter_sets
from parbench.measure.protocol import Unreadable, parse_stdout, read_json
from parbench.measure.runtimes import parse_description
from parbench.store.database import redact


def invoke(*args: str):
    return CliRunner().invoke(cli.main, list(args), catch_exceptions=True)


def assert_one_line_refusal(result, db: str | None = None) -> None:
    """Exit 2, one line, no traceback, and (given the store) nothing stored."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert len([line for line in result.output.splitlines() if line.strip()]) == 1, result.output
    if db and os.path.exists(db):
        with sqlite3.connect(db) as store:
            tables = {t for (t,) in store.execute("SELECT name FROM sqlite_master WHERE type='table'")}
            assert "runs" not in tables or store.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0


# 1. Text from outside is parsed as console markup.
@pytest.mark.parametrize("reference", ["[/x]", "[bold]x[/]", "²", "latest~²"])
def test_a_run_reference_holding_markup_or_a_superscript_is_one_line(tmp_path, reference):
    db = str(tmp_path / "s.sqlite")
    assert invoke("exec", "-r", "2", "--db", db, "--", "true").exit_code == 0      # one run to refer to
    result = invoke("show", reference, "--db", db)
    assert result.exit_code == 2 and isinstance(result.exception, SystemExit), (result.output, result.exception)
    assert "no run" in result.output and len(result.output.strip().splitlines()) == 1, result.output


def test_an_error_message_holding_a_closing_tag_prints_as_written(capsys):
    with pytest.raises(SystemExit):
        cli.fail("cannot load [/opt/vm/image.bin]")
    assert "cannot load [/opt/vm/image.bin]" in capsys.readouterr().err


# 2. Numbers and text that are not checked.
@pytest.mark.parametrize("args", [
    ("sweep", "size", "--workload", "spawn-chain", "--from", "nan"),
    ("sweep", "size", "--workload", "spawn-chain", "--to", "inf"),
    ("run", "--workload", "spawn-chain", "--target-ci", "nan"),
    ("run", "--workload", "spawn-chain", "--workers", "99999999999999999999"),
    ("run", "--workload", "spawn-chain", "--workers", "²"),
    ("run", "--workload", "spawn-chain", "--memory-limit", "0.4K"),
    ("run", "--workload", "spawn-chain", "--memory-limit", "0.5%"),
    ("run", "--workload", "spawn-chain", "--seed", "99999999999999999999"),
], ids=" ".join)          # exec's -P nan / inf: exit 1 as hyperfine (tests/test_exec_hyperfine.py)
def test_a_number_out_of_its_bounds_is_one_line_exit_2_and_nothing_stored(tmp_path, args):
    db = str(tmp_path / "s.sqlite")
    assert_one_line_refusal(invoke(*args, "--db", db), db)


# 3. What an implementation prints is not bounded.
@pytest.mark.parametrize("line, reason", [
    ('{"rep":0,"ns":100000000000000000000,"items":1,"checksum":"x"}', "int64"),
    ("[" * 200_000 + "]" * 200_000, "deeper"),
    ('{"rep":0,"ns":5,"items":1,"checksum":"\\ud800"}', "surrogate"),
    ('{"rep":0,"ns":5,"items":1,"checksum":"x","extra":{"y":NaN}}', "RFC 8259"),
    ('{"rep":0,"ns":5,"items":1,"checksum":"x","extra":{"y":Infinity}}', "RFC 8259"),
    ('{"error":"limit","detail":"\\udfff"}', "surrogate"),
])
def test_a_line_outside_the_bounds_is_bad_output_with_the_reason(line, reason):
    reply = parse_stdout([line])
    assert reply.malformed and reason in reply.malformed and not reply.repetitions


def test_repetition_lines_beyond_the_repeat_end_the_reading_quickly():
    lines = [json.dumps({"rep": i, "ns": 5, "items": 1, "checksum": "x"}) for i in range(300_000)]
    started = time.monotonic()
    reply = parse_stdout(lines, repeat=3)
    assert time.monotonic() - started < 2
    assert len(reply.repetitions) == 3 and "beyond the 3 asked for" in reply.malformed


def test_a_warmup_line_of_protocols_2_and_3_is_malformed_now():
    lines = ['{"warmup":0,"ns":5,"items":1,"checksum":"a"}', '{"rep":0,"ns":5,"items":1,"checksum":"b"}']
    reply = parse_stdout(lines, repeat=1)
    assert reply.malformed.startswith("stdout line 1 lacks rep (int)")      # protocol 4: every line is a rep line
    assert len(reply.repetitions) == 1 and not reply.warmups


def test_a_list_whose_model_is_a_string_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match="model seq must be an object"):
        parse_description({"workloads": {"noop": {"models": {"seq": "fast"}}}}, "rt")


def test_a_list_nested_too_deep_is_refused():
    with pytest.raises(Unreadable):
        read_json("[" * 100_000 + "]" * 100_000, max_depth=8)


# 8. exec substitution inside quotes.
@pytest.mark.parametrize("template", ['echo "{x}"', "echo '{x}'", "echo {x}", 'echo "a{x}" b\'{x}\''])
def test_an_exec_value_is_never_run_as_shell_code_even_inside_quotes(tmp_path, template):
    value = "$(touch PWN)`touch PWN2`'\"{y}"
    options = ExecOptions([template], parameter_lists=[("x", [value])])
    [command] = commands_for(options)
    done = subprocess.run(command.argv, cwd=tmp_path, capture_output=True, text=True)
    assert not list(tmp_path.iterdir()), "the value ran as shell code"
    assert value in done.stdout


def test_a_value_holding_another_placeholder_is_not_substituted_again():
    options = ExecOptions(["echo {x} {y}"], parameter_lists=[("x", ["{y}"]), ("y", ["Y"])])
    [command] = commands_for(options)
    assert command.display == "echo {y} Y"


def test_a_scan_of_nan_is_refused():
    with pytest.raises(ExecError, match="finite"):
        parameter_sets(ExecOptions(["echo {x}"], parameter_scan=("x", "nan", "1")))


# 9. Secrets.
@pytest.mark.parametrize("url", ["postgresql://u:se/cret@host/db", "postgresql://u@host/db?password=secret",
                                 "postgresql://u:s@c/ret@host/db?sslmode=require&password=secret"])
def test_a_password_is_never_in_a_message(url):
    assert "secret" not in redact(url) and "cret" not in redact(url)


# 6. Exports that other tools misread.
@pytest.mark.parametrize("text", ["=HYPERLINK(\"x\")", "+1", "-1+2", "@SUM(A1)", "\t=1"])
def test_a_csv_cell_a_spreadsheet_would_evaluate_is_text(text):
    cell = csv_cell(text)
    assert cell.startswith("'")
    row = next(csv.reader(io.StringIO(_csv_line(cell))))
    assert row[0] == cell


def _csv_line(cell: str) -> str:
    out = io.StringIO()
    csv.writer(out).writerow([cell])
    return out.getvalue()


def test_a_markdown_cell_cannot_break_its_table_or_inject_html():
    cell = markdown_cell("a|b\n# heading <script>alert(1)</script>")
    assert "\n" not in cell and "<script>" not in cell and "|" not in cell.replace("\\|", "")


def test_a_json_export_has_null_for_a_number_that_is_not_finite():
    text = json_text({"a": float("nan"), "b": [float("inf")], "c": "\ud800"})
    assert json.loads(text) == {"a": None, "b": [None], "c": "\ufffd"}


# 2. Sizes checked against free disk and memory before an input or oracle is built.
@pytest.mark.parametrize("workload, params, what", [
    ("sdes-ecb", {"size": 1 << 40, "key": 642}, "of disk"),
    ("batch-job", {"docs": 10, "text_length": 10 ** 6, "annotations": 4}, "of memory"),
])
def test_a_size_that_cannot_fit_is_refused_with_the_figure_before_it_is_built(workload, params, what):
    from parbench.workloads import footprint, load_all
    why = footprint.problem(load_all()[workload], params)
    assert why and what in why and "available" in why or "free" in why, why


def test_a_size_that_fits_is_not_refused():
    from parbench.workloads import footprint, load_all
    assert footprint.problem(load_all()["sdes-ecb"], {"size": 4096, "key": 642}) is None


def test_a_nul_byte_in_an_exec_command_is_one_line(tmp_path):
    db = str(tmp_path / "s.sqlite")
    assert_one_line_refusal(invoke("exec", "--reference", "\x00", "--db", db, "-r", "2", "--", "true"), db)


def test_an_error_line_stays_one_line_whatever_it_quotes(tmp_path):
    for separator in ("\n", "\r", "\u2028"):
        assert_one_line_refusal(invoke("history", "a", f"b{separator}c", "--db", str(tmp_path / "s.sqlite")))


def test_an_argument_that_is_not_utf8_is_one_line(tmp_path):
    db = str(tmp_path / "s.sqlite")
    assert_one_line_refusal(invoke("exec", "-n", "\udcff", "--db", db, "-r", "2", "--", "true"), db)


# Issue 37, item 7: a value inside $(…), a here-document or a comment was shell code.
@pytest.mark.parametrize("template", ['echo "$(echo {x})"', 'echo "$(echo "{x}")"', "cat <<EOF\n{x}\nEOF",
                                      'echo "${UNSET:-{x}}"', "true # {x}\necho done"])
def test_an_exec_value_inside_a_command_substitution_heredoc_or_comment_never_runs(tmp_path, template):
    db, marker = str(tmp_path / "s.sqlite"), tmp_path / "X"
    result = invoke("exec", "-r", "1", "--db", db, "-L", "x", f"a; touch {marker}\ntouch {marker}", template,
                    "--prepare", template)
    assert not marker.exists(), result.output
    assert result.exit_code in (0, 2), result.output
    if result.exit_code == 2:              # a newline cannot stay inside a comment: refused, one line
        assert_one_line_refusal(result, db)


@pytest.mark.parametrize("template, why", [("echo `echo {x}`", "backticks"), ("echo $(( {x} + 1 ))", "integer"),
                                           ("echo ${x}", "follows a $"), ("cat <<{x}\nhi\n", "delimiter")])
def test_a_placement_no_value_can_take_safely_is_one_line_naming_why(tmp_path, template, why):
    db = str(tmp_path / "s.sqlite")
    result = invoke("exec", "-r", "1", "--db", db, "-L", "x", "a b", template)
    assert_one_line_refusal(result, db)
    assert why in result.output
