"""`parbench exec` against the real hyperfine 1.20.0 (built by scripts/setup into .cache/hyperfine-1.20):
a table of hyperfine invocations — every flag and short form, and the examples of hyperfine's README
made cheap — run by both tools, their JSON compared field by field (names, order of results,
parameters, exit codes, number of runs, which fields there are and in what order; never timings),
and their exit codes. Where parbench differs on purpose, the row says why."""
from __future__ import annotations

import json
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import REPO, require

HYPERFINE = REPO / ".cache" / "hyperfine-1.20" / "bin" / "hyperfine"
HYPERFINE_FIELDS = ("command", "mean", "stddev", "median", "user", "system", "min", "max", "times",
                    "memory_usage_byte", "exit_codes", "parameters")


@dataclass(frozen=True)
class Row:
    args: tuple[str, ...]
    differs: dict[str, str] = field(default_factory=dict)     # a compared field → why parbench differs


def row(*args: str, **differs: str) -> Row:
    return Row(args, differs)


# Cheap commands and few runs: the whole table runs in well under a minute.
TABLE = {
    # runs
    "runs": row("-r", "2", "true"),
    "runs long form": row("--runs", "2", "true"),
    "one run": row("-r", "1", "true"),
    "max runs 1": row("-M", "1", "true"),
    "min and max runs": row("-m", "2", "-M", "3", "true"),
    "long min and max": row("--min-runs", "2", "--max-runs", "2", "true"),
    "no minimum time": row("--min-benchmarking-time", "0", "-N", "true"),    # hidden in hyperfine: 10 runs
    "warmup": row("-w", "1", "-r", "2", "true"),
    "warmup long form": row("--warmup", "1", "--runs", "2", "true"),
    # commands and names
    "two commands": row("-r", "2", "true", "echo x"),
    "fewer names than commands": row("-r", "2", "-n", "first", "true", "echo x"),
    "a name per command": row("-r", "2", "--command-name", "a", "-n", "b", "true", "echo x"),
    "too many names": row("-r", "2", "-n", "a", "-n", "b", "true"),
    "reference first": row("-r", "2", "--reference", "echo ref", "true"),
    "reference name": row("-r", "2", "--reference", "echo ref", "--reference-name", "base", "true"),
    "reference also a command": row("-r", "2", "--reference", "true", "true",
                                    command="parbench tells two benchmarks of one name apart (true #1, true #2): "
                                            "its store keys a case by its name and parameters"),
    # parameters
    "scan": row("-r", "2", "-P", "n", "1", "3", "echo {n}"),
    "scan long form with step": row("-r", "2", "--parameter-scan", "t", "0", "1", "--parameter-step-size", "0.5",
                                    "echo {t}"),
    "decimal scan": row("-r", "1", "-P", "t", "0.3", "0.7", "-D", "0.2", "echo {t}"),
    "decimal scan without a step": row("-P", "t", "0.01", "0.03", "sleep {t}"),
    "empty scan": row("-P", "n", "3", "1", "echo {n}"),
    "scan of negative numbers": row("-r", "1", "-P", "x", "-2", "0", "echo {x}"),
    "list of values that begin with a dash": row("-r", "1", "-L", "x", "-a,-b", "echo {x}"),
    "scan of two commands": row("-r", "1", "-P", "n", "1", "2", "echo a{n}", "echo b{n}"),
    "scan with names": row("-r", "1", "-P", "n", "1", "2", "-n", "n={n}", "echo {n}"),
    "list": row("-r", "2", "-L", "n", "a,b", "echo {n}"),
    "two lists": row("-r", "1", "-L", "a", "1,2", "-L", "b", "x,y", "echo {a}{b}"),
    "list of two commands": row("-r", "1", "--parameter-list", "n", "1,2", "echo {n}", "true {n}"),
    "list with an escaped comma": row("-r", "1", "-L", "n", "a\\,b,c", "echo {n}"),
    "list unused by the command": row("-r", "1", "-L", "n", "1,2", "echo x"),
    "list names one per benchmark": row("-r", "1", "-L", "n", "1,2", "-n", "one", "-n", "two", "echo {n}"),
    "list names of the wrong count": row("-r", "1", "-L", "n", "1,2,3", "-n", "a", "-n", "b", "echo {n}"),
    "duplicate list": row("-L", "a", "1", "-L", "a", "2", "echo {a}"),
    # shells
    "no shell": row("-N", "-r", "2", "echo a b"),
    "shell none": row("--shell=none", "-r", "2", "echo a"),
    "another shell": row("-S", "bash", "-r", "2", "echo x"),
    "a shell with arguments": row("--shell", "bash --norc", "-r", "2", "echo x"),
    # failures
    "failing command": row("-r", "2", "exit 3"),
    "ignore failure": row("-i", "-r", "2", "exit 3"),
    "ignore failure long form": row("--ignore-failure", "-r", "2", "exit 3"),
    "ignore these codes": row("--ignore-failure=3,4", "-r", "2", "exit 3"),
    "ignore other codes": row("--ignore-failure=1,2", "-r", "2", "exit 3"),
    "ignore codes not numbers": row("--ignore-failure=x", "-r", "2", "exit 3"),
    # helpers
    "setup prepare conclude cleanup": row("-s", "true", "-p", "true", "-C", "true", "-c", "true", "-r", "2", "echo x"),
    "long helper forms": row("--setup", "true", "--prepare", "true", "--conclude", "true", "--cleanup", "true",
                             "-r", "2", "echo x"),
    "prepare per command": row("-p", "true", "-p", "true", "-r", "1", "echo a", "echo b"),
    "prepare of the wrong count": row("-p", "true", "-p", "true", "-r", "1", "echo a"),
    "failing prepare": row("-p", "false", "-r", "1", "echo a"),
    # output, input, style, sort, units
    "output pipe": row("--output=pipe", "-r", "2", "echo x"),
    "output null": row("--output=null", "-r", "2", "echo x"),
    "output inherit": row("--output", "inherit", "-r", "1", "echo x"),
    "output to a file": row("--output", "./out.txt", "-r", "1", "echo x"),
    "output to a plain name": row("--output", "out.txt", "-r", "1", "echo x"),
    "output per command": row("--output=null", "--output=pipe", "-r", "1", "echo a", "echo b"),
    "show output": row("--show-output", "-r", "1", "echo x"),
    "input null": row("--input", "null", "-r", "1", "cat"),
    "input from a file": row("--input", "in.txt", "-r", "1", "cat"),
    "input from no file": row("--input", "missing.txt", "-r", "1", "cat"),
    "style basic": row("--style", "basic", "-r", "1", "true"),
    "style none": row("--style", "none", "-r", "1", "true"),
    "sort command": row("--sort", "command", "-r", "1", "echo b", "true"),
    "sort mean-time": row("--sort", "mean-time", "-r", "1", "echo b", "true"),
    "time unit": row("-u", "millisecond", "-r", "1", "true"),
    "time unit long form": row("--time-unit", "microsecond", "-r", "1", "true"),
    # what clap refuses (exit 2)
    "runs with min runs": row("-r", "2", "-m", "3", "true"),
    "list with scan": row("-L", "a", "1", "-P", "b", "1", "2", "echo {a}{b}"),
    "step without scan": row("-D", "1", "true"),
    "reference name without reference": row("--reference-name", "x", "true"),
    "no shell with a shell": row("-N", "-S", "bash", "true"),
    "show output with output": row("--show-output", "--output=null", "true"),
    "no command": row("-r", "2"),
    # hyperfine's README, made cheap (no sudo, no compiler, nothing slow)
    "readme warmup": row("--warmup", "1", "-r", "2", "ls"),
    "readme prepare": row("--prepare", "sync", "-r", "2", "ls"),
    "readme scan": row("--parameter-scan", "num_threads", "1", "3", "-r", "1", "echo make -j {num_threads}"),
    "readme scan with step": row("--parameter-scan", "delay", "0.3", "0.7", "-D", "0.2", "-r", "1", "echo {delay}"),
    "readme list": row("-L", "compiler", "gcc,clang", "-r", "1", "echo {compiler} -O2 main.cpp"),
    "readme no shell": row("-N", "-r", "2", "ls"),
    "readme two commands": row("-r", "2", "echo hexdump", "echo xxd"),
    "readme setup and prepare": row("--setup", "true", "--prepare", "true", "--parameter-scan", "num_threads",
                                    "1", "2", "-r", "1", "echo make -j {num_threads}"),
    "readme reference": row("-r", "1", "--reference", "sleep 0.01", "sleep 0.02", "sleep 0.03"),
}


def _shape(result: dict) -> dict:
    """What a script reads from one result, timings left out."""
    return {"fields": [k for k in result if k in HYPERFINE_FIELDS], "command": result["command"],
            "parameters": result.get("parameters"), "runs": len(result["times"]),
            "memory per run": len(result.get("memory_usage_byte", [])), "exit_codes": result["exit_codes"],
            "stddev is null": result["stddev"] is None}


def _run_both(argvs: list[list[str]], folders: list[Path]) -> list[tuple[int, list[dict] | None]]:
    """Both tools at once (timings are not compared, so they may share the CPU): each one's exit
    code and its JSON's results (None when it failed)."""
    children = []
    for argv, folder in zip(argvs, folders):
        folder.mkdir()
        (folder / "in.txt").write_text("input\n")
        children.append(subprocess.Popen(argv + ["--export-json", str(folder / "out.json")], cwd=folder,
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL))
    answers = []
    for child, folder in zip(children, folders):
        code = child.wait(timeout=120)
        export = folder / "out.json"
        answers.append((code, json.loads(export.read_text())["results"] if code == 0 and export.exists() else None))
    return answers


@pytest.fixture(scope="module")
def hyperfine() -> str:
    found = HYPERFINE.exists() and "hyperfine 1.20.0" in subprocess.run(
        [str(HYPERFINE), "--version"], capture_output=True, text=True).stdout
    require(found, f"hyperfine 1.20.0 is not at {HYPERFINE} (scripts/setup builds it: cargo install --locked "
                   "hyperfine --version 1.20.0 --root .cache/hyperfine-1.20)")
    return str(HYPERFINE)


@pytest.mark.parametrize("name", list(TABLE))
def test_parbench_exec_answers_as_hyperfine(hyperfine, tmp_path, name):
    case = TABLE[name]
    theirs, ours = _run_both([[hyperfine, *case.args],
                              [sys.executable, "-m", "parbench", "exec", "--db", str(tmp_path / "db.sqlite"),
                               *case.args]], [tmp_path / "h", tmp_path / "p"])
    assert ours[0] == theirs[0], f"exit code: parbench {ours[0]}, hyperfine {theirs[0]}"
    if theirs[1] is None:
        return
    assert len(ours[1]) == len(theirs[1]), "number of results"
    for mine, real in zip(ours[1], theirs[1]):
        expected, got = _shape(real), _shape(mine)
        for compared in case.differs:
            expected.pop(compared), got.pop(compared)
        assert got == expected


def test_the_tables_have_hyperfines_shape(hyperfine, tmp_path):
    """Header, divider, command column and row count of --export-markdown/-asciidoc/-orgmode, and
    the CSV's columns as far as hyperfine has them (parbench's own follow)."""
    args = ["-r", "2", "-L", "n", "1,2", "echo {n}"]
    for tool, argv in (("h", [hyperfine]), ("p", [sys.executable, "-m", "parbench", "exec", "--db",
                                                  str(tmp_path / "db.sqlite")])):
        (tmp_path / tool).mkdir()
        subprocess.run(argv + args + ["--export-markdown", "t.md", "--export-asciidoc", "t.adoc", "--export-orgmode",
                                      "t.org", "--export-csv", "t.csv"], cwd=tmp_path / tool, check=True, capture_output=True)
    theirs_csv, ours_csv = ((tmp_path / tool / "t.csv").read_text().splitlines() for tool in ("h", "p"))
    assert ours_csv[0].split(",")[:8] == theirs_csv[0].split(",")[:8] and len(ours_csv) == len(theirs_csv)
    assert [line.split(",")[0] for line in ours_csv] == [line.split(",")[0] for line in theirs_csv]
    for name in ("t.md", "t.adoc", "t.org"):
        theirs = (tmp_path / "h" / name).read_text().splitlines()
        ours = (tmp_path / "p" / name).read_text().splitlines()
        units = lambda line: re.sub(r"\[[µm]?s\]", "[unit]", line)      # the first command's mean chooses it
        # Markdown's median and its interval follow hyperfine's columns: hyperfine's come first.
        hyperfines = lambda line: "|".join(line.split("|")[:6]) + "|" if name == "t.md" else line
        assert len(ours) == len(theirs)
        assert [units(hyperfines(line)) for line in ours[:2]] == [units(line) for line in theirs[:2]]
        structure = lambda lines: [line.split("|")[1] if line.count("|") > 2 else line.split(" ")[0] for line in lines]
        assert structure(ours) == structure(theirs)
