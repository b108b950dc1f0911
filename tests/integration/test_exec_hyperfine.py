"""`parbench exec` as a drop-in for hyperfine 1.20: every flag against real commands, the comparison
with CIs, values that never reach a shell unquoted, the exit codes one by one, and the exports
in hyperfine's shapes (kinds/exec/flags.py, export/hyperfine_tables.py, the JSON's exec part)."""
import json
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

from conftest import REPO, default_sigint, parbench


def _samples(db: str) -> dict[str, int]:
    return dict(sqlite3.connect(db).execute(
        "SELECT c.model, COUNT(*) FROM samples s JOIN cases c ON c.id = s.case_id WHERE s.verified = 1 "
        "GROUP BY c.model").fetchall())


def _results(path) -> list[dict]:
    return json.loads(path.read_text())["results"]


def test_several_commands_are_compared_with_cis_and_names(db):
    done = parbench("exec", "-r", "10", "-n", "short", "-n", "long", "--db", db, "sleep 0.01", "sleep 0.2", check=True)
    assert "Benchmark 1: short (sleep 0.01)" in done.stdout and "Benchmark 2: long (sleep 0.2)" in done.stdout
    assert "'short' ran" in done.stdout and "x faster than 'long' [" in done.stdout
    assert _samples(db) == {"short": 10, "long": 10}


def test_the_reference_is_its_own_first_benchmark_and_the_baseline(db, tmp_path):
    out = tmp_path / "r.json"
    done = parbench("exec", "-r", "2", "--reference", "sleep 0.2", "--reference-name", "slow", "--export-json",
                    str(out), "--db", db, "sleep 0.01", check=True)
    assert "'slow' ran" in done.stdout and "x slower than 'sleep 0.01'" in done.stdout
    assert [r["command"] for r in _results(out)] == ["slow", "sleep 0.01"]


def test_runs_of_several_commands_take_turns(db):
    parbench("exec", "-r", "3", "--db", db, "true", "echo x", check=True)
    order = [m for (m,) in sqlite3.connect(db).execute(
        "SELECT c.model FROM processes p JOIN cases c ON c.id = p.case_id WHERE p.idx >= 0 ORDER BY p.seq")]
    assert order == ["true", "echo x"] * 3


def test_warmup_runs_are_run_and_not_counted(db, tmp_path):
    counter = tmp_path / "count"
    parbench("exec", "-w", "2", "-r", "3", "--db", db, f"echo x >> {counter}", check=True)
    assert len(counter.read_text().splitlines()) == 5 and sum(_samples(db).values()) == 3


def test_one_run_is_allowed_and_its_stddev_is_null(db, tmp_path):
    out = tmp_path / "r.json"
    parbench("exec", "-r", "1", "--export-json", str(out), "--db", db, "true", check=True)
    [result] = _results(out)
    assert len(result["times"]) == 1 and result["stddev"] is None
    import jsonschema          # from the test extra: the schema allows what hyperfine writes
    jsonschema.validate(json.loads(out.read_text()),
                        json.loads((REPO / "schemas" / "parbench-export.schema.json").read_text()))
    parbench("exec", "-M", "1", "--db", db, "true", check=True)


def test_min_and_max_runs(db):
    parbench("exec", "-m", "3", "-M", "4", "--db", db, "true", check=True)
    assert 3 <= sum(_samples(db).values()) <= 4
    refused = parbench("exec", "-m", "5", "-M", "3", "--db", db, "true")
    assert refused.returncode == 1 and "Conflicting requirements for the number of runs" in refused.stderr


@pytest.mark.parametrize("args, code, words", [
    (("-r", "2", "-m", "3"), 2, "cannot be used with"),
    (("-L", "n", "1", "-P", "n", "1", "2"), 2, "cannot be used with"),
    (("-D", "1",), 2, "requires --parameter-scan"),
    (("--reference-name", "x"), 2, "requires --reference"),
    (("-N", "-S", "bash"), 2, "cannot be used with"),
    (("-P", "t", "0.01", "0.03"), 1, "A step size is required"),
    (("-P", "x", "nan", "1"), 1, "parameter scan arguments"),
    (("-P", "x", "1", "inf"), 1, "parameter scan arguments"),
    (("--output", "plainname"), 1, "Use './plainname'"),
    (("--input", "/nonexistent/in"), 1, "specified as '--input' does not exist"),
    (("-p", "true", "-p", "true"), 1, "'--prepare' option has to be provided just once or N times"),
    (("--ignore-failure=x",), 1, "ignore-failure"),
])
def test_what_hyperfine_refuses_is_refused_with_its_exit_code_and_nothing_is_run(db, args, code, words):
    done = parbench("exec", *args, "--db", db, "echo {n}{t}{x}")
    assert done.returncode == code and words in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_parameter_lists_make_a_product_and_a_scan_has_a_step(db, tmp_path):
    out = tmp_path / "r.json"
    parbench("exec", "-r", "2", "-L", "a", "1,2", "-L", "b", "x,y", "--export-json", str(out), "--db", db,
             "echo {a}{b}", check=True)
    assert [r["command"] for r in _results(out)] == ["echo 1x", "echo 2x", "echo 1y", "echo 2y"]
    assert _results(out)[1]["parameters"] == {"a": "2", "b": "x"}
    parbench("exec", "-r", "2", "-P", "t", "0", "1", "-D", "0.5", "--export-json", str(out), "--db", db,
             "echo {t}", check=True)
    assert [r["command"] for r in _results(out)] == ["echo 0", "echo 0.5", "echo 1.0"]


def test_prepare_setup_cleanup_and_conclude_run_when_hyperfine_runs_them(db, tmp_path):
    log = tmp_path / "log"
    parbench("exec", "-r", "3", "-p", f"echo prepare >> {log}", "-s", f"echo setup >> {log}",
             "-c", f"echo cleanup >> {log}", "-C", f"echo conclude >> {log}", "--db", db, "true", check=True)
    lines = log.read_text().split()
    assert lines[0] == "setup" and lines[-1] == "cleanup"
    assert lines.count("prepare") == 3 and lines.count("conclude") == 3 and lines.count("setup") == 1


def test_prepare_and_conclude_pair_with_their_commands_in_order(db, tmp_path):
    log = tmp_path / "log"
    parbench("exec", "-r", "1", "-p", f"echo pa >> {log}", "-p", f"echo pb >> {log}", "--conclude",
             f"echo ca >> {log}", "--conclude", f"echo cb >> {log}", "--db", db, "echo a", "echo b", check=True)
    assert log.read_text().split() == ["pa", "ca", "pb", "cb"]


def test_no_shell_runs_words_directly_and_another_shell_can_be_named(db):
    parbench("exec", "-N", "-r", "2", "--expect", "a b", "--db", db, "echo 'a b'", check=True)
    parbench("exec", "-S", "bash --norc", "-r", "2", "--expect", "bash", "--db", db, 'echo "${BASH_VERSION:+bash}"',
             check=True)


def test_substituted_values_never_run_as_shell_syntax(db, tmp_path):
    planted = tmp_path / "pwned"
    value = f"$(touch {planted});`touch {planted}`;' ; touch {planted}"
    done = parbench("exec", "-r", "2", "-L", "v", value.replace(",", "\\,"), "--expect", value, "--db", db,
                    "echo {v}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert not planted.exists()


def test_ignore_failure_counts_all_non_zero_exits_or_only_the_codes_given(db):
    assert parbench("exec", "-r", "2", "--db", db, "exit 1").returncode == 1
    parbench("exec", "-r", "2", "-i", "--db", db, "exit 1", check=True)
    parbench("exec", "-r", "2", "--ignore-failure", "--db", db, "exit 1", check=True)
    parbench("exec", "-r", "2", "--ignore-failure=1,2", "--db", db, "exit 2", check=True)
    assert parbench("exec", "-r", "2", "--ignore-failure=1,2", "--db", db, "exit 3").returncode == 1


def test_show_output_and_time_unit(db):
    done = parbench("exec", "-r", "2", "--show-output", "-u", "millisecond", "--db", db, "echo visible-output",
                    check=True)
    assert "visible-output" in done.stdout and " ms" in done.stdout.split("Time (median")[1].splitlines()[0]


def test_output_to_a_file_and_input_from_a_file(db, tmp_path):
    given, written = tmp_path / "in.txt", tmp_path / "out.txt"
    given.write_text("from the file\n")
    done = parbench("exec", "-r", "2", "--input", str(given), "--output", str(written), "--db", db, "cat",
                    check=True)
    assert written.read_text() == "from the file\n" and "from the file" not in done.stdout
    assert parbench("exec", "-r", "2", "--output", "inherit", "--db", db, "echo shown", check=True).stdout.count(
        "shown") >= 2


def test_hyperfine_iteration_is_in_each_runs_environment(db, tmp_path):
    log = tmp_path / "it"
    parbench("exec", "-w", "1", "-r", "2", "--db", db, f"echo $HYPERFINE_ITERATION >> {log}", check=True)
    assert log.read_text().split() == ["warmup-0", "0", "1"]


def test_style_none_prints_no_report_and_sort_command_keeps_the_order(db):
    assert "Benchmark" not in parbench("exec", "-r", "2", "--style", "none", "--db", db, "true", check=True).stdout
    done = parbench("exec", "-r", "2", "--sort", "command", "--db", db, "sleep 0.05", "true", "sleep 0.02",
                    check=True).stdout
    comparison = done.split("ran\n")[1]
    assert comparison.index("sleep 0.05") < comparison.index("sleep 0.02")


def test_exports_in_hyperfines_shapes(db, tmp_path):
    out = tmp_path / "out"
    parbench("exec", "-r", "3", "--export-json", str(out / "r.json"), "--export-csv", str(out / "r.csv"),
             "--export-markdown", str(out / "r.md"), "--export-asciidoc", str(out / "r.adoc"),
             "--export-orgmode", str(out / "r.org"), "--export-report", str(out / "report.md"),
             "--export-csv-samples", str(out / "s.csv"), "--db", db, "true", check=True)
    [first] = _results(out / "r.json")
    assert list(first)[:11] == ["run", "command", "mean", "stddev", "median", "user", "system", "min", "max", "times",
                                "memory_usage_byte"] and "parameters" not in first
    assert first["command"] == "true" and len(first["times"]) == 3 and first["exit_codes"] == [0, 0, 0]
    assert len(first["memory_usage_byte"]) == 3 and all(b > 100_000 for b in first["memory_usage_byte"])
    assert (out / "r.csv").read_text().startswith("command,mean,stddev,median,user,system,min,max")
    assert len((out / "s.csv").read_text().splitlines()) == 1 + 3
    table = (out / "r.md").read_text().splitlines()
    assert table[0].startswith("| Command | Mean [") and table[1] == "|:---|---:|---:|---:|---:|---:|---:|"
    assert table[2].startswith("| `true` | ") and " | 1.00 | " in table[2] and len(table) == 3
    assert table[0].endswith(" | Relative | Median [µs] | Interval of the median [µs] |") or \
        table[0].endswith(" | Relative | Median [ms] | Interval of the median [ms] |")
    assert table[2].endswith(" (range of 3 runs) |")
    assert (out / "r.adoc").read_text().startswith('[cols="<,>,>,>,>"]\n|===\n| Command \n')
    assert (out / "r.org").read_text().splitlines()[1] == "|--+--+--+--+--|"
    assert "Comparison" in (out / "report.md").read_text() or "true" in (out / "report.md").read_text()
    piped = parbench("exec", "-r", "2", "--export-json", "-", "--db", db, "true", check=True)
    assert '"schema_version": 1' in piped.stdout


def test_exec_interrupted_is_exit_130(db):
    child = subprocess.Popen([sys.executable, "-m", "parbench", "exec", "-r", "50", "--db", db, "sleep 1"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=default_sigint)
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if sqlite3.connect(db).execute("SELECT COUNT(*) FROM processes").fetchone()[0] >= 1:
                break
        except sqlite3.Error:
            pass
        time.sleep(0.2)
    child.send_signal(signal.SIGINT)
    child.communicate(timeout=60)
    assert child.returncode == 130
