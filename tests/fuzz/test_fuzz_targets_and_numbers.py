"""Issue 39's classes, fuzzed: control characters in every string a command takes never reach the
terminal raw; every kind of path target (a file, a link, a device, a FIFO, a folder, a socket…)
is written through, replaced whole or refused in one line, and never replaced by something
else; every numeric flag of every command is finite and bounded, whatever number it is given;
and a journal or an export whose figures are NaN, huge, zero or negative is refused or read,
never stored as a verified time it cannot be."""
from __future__ import annotations

import dataclasses
import json
import math
import os
import socket
import stat
import threading

import click
from click.testing import CliRunner
from hypothesis import example, given
from hypothesis import strategies as st
from test_fuzz_boundaries import CONTROL, _invoke_in, _no_run_stored, _raw_control, _report

from parbench.cli import commands as cli
from parbench.export import formats
from parbench.store import open_store
from parbench.store.sink import Journal

with_controls = st.text(st.sampled_from(CONTROL) | st.characters(codec="utf-8"), min_size=1, max_size=20) \
    | st.sampled_from(["\x1b[2J", "\x1b]0;title\x07", "a\nb", "\r", "\x9b31m"])


# --- control characters in every string input ----------------------------------------------
STRING_OPTIONS = {"exec": ["-n", "--reference-name", "--save-baseline", "--expect", "-L"],
                  "show": ["RUN"], "history": [], "compare": ["RUN"], "run": ["--param", "--model", "--save-baseline"]}


@given(command=st.sampled_from(sorted(STRING_OPTIONS)), text=with_controls, where=st.integers(0, 10))
@example(command="exec", text="\x1b[2J\x1b]0;pwned\x07", where=0)
@example(command="exec", text="x\x1b[31m", where=4)
@example(command="show", text="\x1b[2J", where=0)
def test_a_control_character_in_any_string_reaches_no_terminal_raw(tmp_path_factory, command, text, where):
    folder = tmp_path_factory.mktemp("controls")
    db = str(folder / "s.sqlite")
    options = STRING_OPTIONS[command]
    option = options[where % len(options)] if options else None
    args = [command]
    if option == "RUN":
        args += [text] + (["1"] if command == "compare" else [])
    elif option == "-L":
        args += ["-L", "x", text]
    elif option:
        args += [option, text]
    if command == "exec":
        args += ["-N", "-r", "1", "--db", db, "--", "echo {x}" if option == "-L" else "true"]
    else:
        args += (["--workload", "no-such-workload"] if command == "run" else []) + ["--db", db]
    result = _invoke_in(folder, args)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert _raw_control(result.output) is None, result.output


@given(name=with_controls, exporter=st.sampled_from([f for f in formats() if f.extension in ("md", "org", "adoc", "txt")]))
@example(name="\x1b[2J|x\ny", exporter=next(f for f in formats() if f.name == "orgmode"))
def test_no_human_readable_export_holds_a_raw_control_character(name, exporter):
    text = exporter.render([_report(name, "c", {}, 5)])
    assert _raw_control(text) is None, (exporter.name, text)


# --- every kind of path target -----------------------------------------------------------------
TARGETS = ["absent", "file", "link-to-file", "dangling-link", "device", "link-to-device", "fifo", "folder",
           "link-to-folder", "socket", "under-a-file"]


def _make(folder, kind: str):
    """A target of that kind in `folder`; (its path, what must hold of it afterwards)."""
    path = folder / f"target-{kind}"
    if kind == "file":
        path.write_text("old")
    elif kind == "link-to-file":
        (folder / "real").write_text("old")
        path.symlink_to(folder / "real")
    elif kind == "dangling-link":
        path.symlink_to(folder / "nowhere")
    elif kind in ("device", "link-to-device"):
        device = folder / "null"
        os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        if kind == "link-to-device":
            path.symlink_to(device)
        else:
            path = device
    elif kind == "fifo":
        os.mkfifo(path)
        threading.Thread(target=lambda: open(path, "rb").read(), daemon=True).start()
    elif kind == "folder":
        path.mkdir()
    elif kind == "link-to-folder":
        (folder / "dir").mkdir()
        path.symlink_to(folder / "dir")
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        server.bind(str(path))
    elif kind == "under-a-file":
        (folder / "plain").write_text("x")
        path = folder / "plain" / "inside.json"
    return path


def _release(fifo) -> None:
    """A reader still waiting on the FIFO (nothing was written to it) gets its end of file."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:
        pass


def _kind_of(path) -> tuple:
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return ("absent",)
    return (stat.S_IFMT(mode), os.readlink(path) if stat.S_ISLNK(mode) else None)


_stored_db: dict = {}


def _a_stored_run(tmp_path_factory) -> str:
    if "db" not in _stored_db:
        folder = tmp_path_factory.mktemp("stored")
        db = str(folder / "s.sqlite")
        assert CliRunner().invoke(cli.main, ["exec", "-N", "-r", "2", "--db", db, "--", "true"]).exit_code == 0
        _stored_db["db"] = db
    return _stored_db["db"]


@given(kind=st.sampled_from(TARGETS), how=st.sampled_from(["--export-json", "--export-orgmode", "--out", "--html", "--db"]))
@example(kind="device", how="--export-json")
@example(kind="fifo", how="--html")
@example(kind="link-to-device", how="--db")
def test_every_kind_of_target_is_written_through_replaced_whole_or_refused(tmp_path_factory, kind, how):
    folder = tmp_path_factory.mktemp("target")
    path = _make(folder, kind)
    before = _kind_of(path)
    db = _a_stored_run(tmp_path_factory)
    args = {"--html": ["report", "--html", str(path), "--db", db], "--db": ["history", "--db", str(path)],
            "--out": ["show", "--out", str(path), "--db", db]}.get(how, ["show", how, str(path), "--db", db])
    result = _invoke_in(folder, args)
    if kind == "fifo":
        _release(path)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 1, 2), result.output
    if result.exit_code:
        assert len([line for line in result.output.splitlines() if line.strip()]) == 1, result.output
    after = _kind_of(path)
    if before != ("absent",) and not (kind in ("file", "link-to-file") or (kind == "dangling-link" and how != "--db")):
        assert after == before, (kind, how, before, after)
    if kind in ("file", "link-to-file") and how in ("--export-json", "--html") and result.exit_code == 0:
        assert _kind_of(path) == before and path.read_text() != "old"      # the link kept, the file replaced


# --- non-finite, huge and negative numbers in every flag -------------------------------------
NUMBERS = st.sampled_from(["nan", "-nan", "inf", "-inf", "1e309", "-1", "0", "-0.0", "1e-320", str(2 ** 64),
                           str(2 ** 63), str(10 ** 29), "9" * 40, "0x10", "1_000", " 5 ", "²"]) \
    | st.floats(allow_nan=True, allow_infinity=True).map(repr) | st.integers().map(str)


def _numeric_params():
    commands = {name: cmd for name, cmd in cli.main.commands.items()}
    for name, command in sorted(commands.items()):
        for param in command.params:
            if isinstance(param.type, (click.types._NumberParamTypeBase, click.types._NumberRangeBase)) \
                    or param.type.name in ("SECONDS",) or "Range" in type(param.type).__name__:
                yield name, command, param


NUMERIC = list(_numeric_params())


@given(which=st.integers(0, len(NUMERIC) - 1), value=NUMBERS)
@example(which=0, value="nan")
def test_every_numeric_flag_is_finite_and_bounded_or_refused(which, value):
    name, command, param = NUMERIC[which]
    context = click.Context(command)
    try:
        number = param.type.convert(value, param, context)
    except click.BadParameter:
        return
    assert math.isfinite(number), (name, param.name, value, number)
    low, high = getattr(param.type, "min", None), getattr(param.type, "max", None)
    if getattr(param.type, "minimum", None) is not None:
        low, high = param.type.minimum, param.type.maximum
    assert high is not None, f"{name} {param.opts}: no upper bound"
    assert (low is None or number >= low) and number <= high, (name, param.name, value, number)


# --- … and in every imported file -------------------------------------------------------------
_export_cache: dict = {}


def _exported(tmp_path_factory) -> dict:
    if "export" not in _export_cache:
        folder = tmp_path_factory.mktemp("export")
        path = folder / "e.json"
        assert CliRunner().invoke(cli.main, ["exec", "-N", "-r", "2", "--db", str(folder / "e.sqlite"),
                                             "--export-json", str(path), "--", "true"]).exit_code == 0
        _export_cache["export"] = json.loads(path.read_text())
        _export_cache["db"] = str(folder / "e.sqlite")
    return _export_cache


FIGURES = ["ns", "items", "wall_ns", "user_ns", "sys_ns", "max_rss_kb", "tree_peak_rss_kb"]
file_numbers = st.sampled_from([float("nan"), float("inf"), -1, 0, -(2 ** 63), 2 ** 63, 10 ** 29, 1e308, -0.5]) \
    | st.integers() | st.floats()


@given(figure=st.sampled_from(FIGURES), number=file_numbers, into=st.sampled_from(["compare", "load"]))
@example(figure="ns", number=-5, into="load")
@example(figure="ns", number=0, into="compare")
@example(figure="wall_ns", number=float("nan"), into="compare")
def test_an_imported_figure_is_refused_or_read_never_stored_as_an_impossible_time(tmp_path_factory, figure, number, into):
    folder = tmp_path_factory.mktemp("imported")
    cached = _exported(tmp_path_factory)
    if into == "compare":
        data = json.loads(json.dumps(cached["export"]))
        for result in data["results"]:
            for process in result["processes"]:
                target = process["samples"][0] if figure in ("ns", "items") else process
                target[figure] = number
        bad = folder / "bad.json"
        bad.write_text(json.dumps(data))
        result = _invoke_in(folder, ["compare", str(bad), str(bad)])
    else:
        record = open_store(cached["db"]).load_run(1)
        journal = Journal(folder / "j.jsonl", dataclasses.replace(record, results=[]))
        run = record.results[0].run
        if figure in ("ns", "items"):
            run.repetitions[0] = dataclasses.replace(run.repetitions[0], **{figure: number})
        else:
            run.processes[0] = dataclasses.replace(run.processes[0], **{figure: number})
        journal.append(run)
        db = str(folder / "t.sqlite")
        result = _invoke_in(folder, ["load", str(journal.path), "--db", db])
        if result.exit_code == 0:
            for stored in open_store(db).load_run(1).results:
                assert all(r.ns > 0 for r in stored.run.repetitions if r.verified)
                assert all(p.wall_ns >= 0 for p in stored.run.processes)
        elif result.exit_code == 2:
            assert _no_run_stored(db)
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code in (0, 1, 2), result.output
    if result.exit_code:
        assert len([line for line in result.output.splitlines() if line.strip()]) == 1, result.output
