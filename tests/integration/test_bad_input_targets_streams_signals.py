"""One test per class of issue 39, each failing on 35dda67: exports that replaced whatever was at
their path, `-` shared with the report, control characters from outside reaching the terminal,
tracebacks (a NaN timeout, a damaged or foreign store, a full disk at `load`, 0 ns samples),
numbers without bounds, signals and --resume doing something else than they say, and exports
that their own readers (pyperf, jq, org-mode, AsciiDoc) could not read."""
from __future__ import annotations

import csv
import dataclasses
import hashlib
import html.parser
import io
import json
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO, default_sigint, parbench, require, require_module
from parbench.analysis.case_results import analyze
from parbench.export import by_name
from parbench.export.base import NotExportable, Report
from parbench.measure.runtimes import parse_description
from parbench.records import Case, CaseRun, ProcessMeasurement, Repetition, RunRecord
from parbench.store import open_store
from parbench.store.sink import Journal

EVIL = "\x1b[2J\x1b]0;pwned\x07"           # clears the screen, retitles the terminal, rings


def _one_line(done, code: int = 2) -> str:
    assert done.returncode == code, (done.returncode, done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    return done.stderr


def _stored(db: str, *args: str) -> None:
    parbench("exec", "-N", "-r", "2", *args, "--db", db, "true", check=True)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# 1. Writes that respect what is there.
def test_an_export_onto_a_device_a_fifo_or_a_link_writes_through_and_a_file_is_replaced(tmp_path):
    db = str(tmp_path / "s.sqlite")
    _stored(db)
    device, fifo, link, regular = (tmp_path / n for n in ("null", "fifo", "link", "old.json"))
    os.mknod(device, 0o666 | stat.S_IFCHR, os.makedev(1, 3))          # a /dev/null of our own
    os.mkfifo(fifo)
    link.symlink_to(device)
    regular.write_text("old")
    read: dict = {}
    reader = threading.Thread(target=lambda: read.update(text=fifo.read_text()), daemon=True)
    reader.start()
    done = parbench("show", "--db", db, "--export-json", str(device), "--export-csv", str(fifo),
                    "--export-markdown", str(link), "--export-pyperf", str(regular), timeout=60)
    reader.join(30)
    assert done.returncode == 0, done.stderr
    assert stat.S_ISCHR(os.stat(device).st_mode) and os.stat(device).st_rdev == os.makedev(1, 3)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and read.get("text", "").startswith("command,")
    assert link.is_symlink() and os.readlink(link) == str(device)
    assert json.loads(regular.read_text())["version"] == "1.0"           # replaced whole
    assert parbench("report", "--db", db, "--html", str(link)).returncode == 0 and link.is_symlink()
    refused = _one_line(parbench("history", "--db", str(device)))
    assert "device" in refused and stat.S_ISCHR(os.stat(device).st_mode)
    assert "folder" in _one_line(parbench("show", "--db", db, "--export-json", str(tmp_path)))


# 2. `-` means the stream holds the export alone.
def test_an_export_to_standard_output_is_all_that_standard_output_holds(tmp_path):
    db = str(tmp_path / "s.sqlite")
    done = parbench("exec", "--style", "none", "-r", "2", "--export-json", "-", "--db", db, "true", check=True)
    assert json.loads(done.stdout)["results"][0]["command"] == "true"
    assert "stored as run 1" in done.stderr
    jq = shutil.which("jq")
    require(jq, "jq is not installed (apt-get install jq)")
    assert subprocess.run([jq, ".results[0].command"], input=done.stdout, capture_output=True, text=True).stdout == '"true"\n'
    shown = parbench("show", "--db", db, "--export-csv", "-", check=True)
    assert next(csv.reader(io.StringIO(shown.stdout)))[0] == "command" and "Run 1" in shown.stderr
    assert "holds one export" in _one_line(parbench("show", "--db", db, "--export-csv", "-", "--export-json", "-"))


# 3. One escaping boundary for control characters.
def test_no_control_character_from_outside_reaches_the_terminal(tmp_path):
    db = str(tmp_path / f"s{EVIL}\nx.sqlite")
    export = tmp_path / f"e{EVIL}\nx.json"
    done = parbench("exec", "-N", "-r", "2", "-n", f"name{EVIL}\nsecond", "-n", "loud", "--save-baseline", f"b{EVIL}",
                    "--export-json", str(export), "--db", db, "--",
                    "true", f"sh -c \"printf 'oops{EVIL}' >&2; exit 3\"")
    shown = done.stdout + done.stderr
    assert done.returncode == 1, shown
    assert "\x1b" not in shown and "\x07" not in shown, shown
    assert "\\x1b[2J\\x1b]0;pwned\\x07" in shown
    lines = shown.splitlines()
    assert any(line.startswith("wrote ") and line.endswith("\\nx.json") for line in lines), shown
    assert any(line.startswith("stored as run 1 in ") and line.endswith("\\nx.sqlite") for line in lines), shown
    assert any(line.startswith("Benchmark 1: name") and "\\nsecond (true)" in line for line in lines), shown
    with pytest.raises(ValueError, match="control or invisible character"):
        parse_description({"workloads": {"noop": {"models": {f"seq{EVIL}": {"family": "seq"}}}}}, "rt")


# 4. No traceback, anywhere.
def _damaged_store(tmp_path: Path) -> str:
    """Two runs stored, then the pages of the samples table overwritten (the cases still read)."""
    db = str(tmp_path / "damaged.sqlite")
    for _ in range(2):
        _stored(db)
    with sqlite3.connect(db) as peek:
        root = peek.execute("SELECT rootpage FROM sqlite_master WHERE name = 'samples'").fetchone()[0]
        page = peek.execute("PRAGMA page_size").fetchone()[0]
    with open(db, "r+b") as file:
        file.seek((root - 1) * page)
        file.write(b"\xa5" * page)
    return db


def test_a_damaged_store_is_one_line_naming_sqlites_verdict_and_what_still_works(tmp_path):
    db = _damaged_store(tmp_path)
    for command in (["show"], ["compare", "1", "2"], ["report", "--html", str(tmp_path / "r.html")]):
        error = _one_line(parbench(*command, "--db", db))
        assert "damaged" in error and "integrity_check" in error and "parbench history" in error, error
    assert parbench("history", "--db", db).returncode == 0


def test_another_programs_sqlite_with_a_meta_schema_version_is_refused_untouched(tmp_path):
    path = tmp_path / "theirs.sqlite"
    with sqlite3.connect(path) as theirs:
        theirs.execute("CREATE TABLE meta(schema_version INTEGER, owner TEXT)")
        theirs.execute("CREATE TABLE runs(id INTEGER, what TEXT)")
        theirs.execute("INSERT INTO meta VALUES (1, 'them')")
    before = _sha(path)
    for command in (["history"], ["exec", "-N", "-r", "1", "true"]):
        assert "not a parbench results database" in _one_line(parbench(*command, "--db", str(path)))
    assert _sha(path) == before and sorted(p.name for p in tmp_path.iterdir()) == ["theirs.sqlite"]


def _export(tmp_path: Path, change) -> Path:
    good = tmp_path / "good.json"
    parbench("exec", "-N", "-r", "2", "true", "--db", str(tmp_path / "e.sqlite"), "--export-json", str(good), check=True)
    data = json.loads(good.read_text())
    for result in data["results"]:
        for process in result["processes"]:
            for sample in process["samples"]:
                change(sample)
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    return good


@pytest.mark.parametrize("ns", [0, -5])
def test_an_export_with_a_zero_or_negative_verified_time_is_one_line(tmp_path, ns):
    good = _export(tmp_path, lambda sample: sample.update(ns=ns))
    error = _one_line(parbench("compare", str(good), str(tmp_path / "bad.json")))
    assert "a verified time is positive" in error


def test_nan_as_exec_timeout_is_one_line():
    assert "finite" in _one_line(parbench("exec", "--timeout", "nan", "--db", "/nonexistent/s.sqlite", "true"))


def _journal(tmp_path: Path, ns: int | None = None) -> Path:
    db = str(tmp_path / "source.sqlite")
    _stored(db)
    record = open_store(db).load_run(1)
    journal = Journal(tmp_path / "run-1.jsonl", dataclasses.replace(record, results=[]))
    for result in record.results:
        if ns is not None:
            result.run.repetitions = [dataclasses.replace(r, ns=ns) for r in result.run.repetitions]
        journal.append(result.run)
    return journal.path


def test_load_into_a_store_on_a_full_disk_keeps_the_journal_and_says_so(tmp_path):
    journal = _journal(tmp_path)
    before = _sha(journal)
    mount = tmp_path / "small"
    mount.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", str(mount)], capture_output=True)
    assert mounted.returncode == 0, f"cannot mount a tmpfs (the test needs root): {mounted.stderr}"
    try:
        db = str(mount / "full.sqlite")
        _stored(db)
        reader = sqlite3.connect(db)              # keeps the store's -shm and -wal while the disk fills:
        reader.execute("SELECT COUNT(*) FROM runs").fetchone()      # parbench opens it, and a write fails
        filler = os.open(mount / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            while True:
                os.write(filler, b"x" * 4096)
        except OSError:
            pass
        finally:
            os.close(filler)
        error = _one_line(parbench("load", str(journal), "--db", db), code=1)
        assert "is kept as it was" in error and ("disk" in error or "I/O" in error) and str(journal) in error
        assert _sha(journal) == before
        reader.close()
    finally:
        if subprocess.run(["umount", str(mount)], capture_output=True).returncode:
            subprocess.run(["umount", "-l", str(mount)], capture_output=True)


# 5. Numbers without bounds.
@pytest.mark.parametrize("args", [("-r", str(10 ** 29)), ("-w", str(10 ** 20)), ("-m", str(2 ** 64)),
                                  ("--min-benchmarking-time", "inf")], ids=" ".join)
def test_an_exec_count_beyond_hyperfines_u64_is_one_line_and_nothing_runs(tmp_path, args):
    db = tmp_path / "s.sqlite"
    assert "Invalid value" in _one_line(parbench("exec", *args, "--db", str(db), "true", timeout=30))
    assert not db.exists()


def test_a_journal_with_a_negative_verified_time_stores_nothing(tmp_path):
    journal = _journal(tmp_path, ns=-5)
    target = tmp_path / "target.sqlite"
    assert "a verified time is positive" in _one_line(parbench("load", str(journal), "--db", str(target)))
    assert not target.exists()


def test_a_journal_whose_repetition_outlasts_its_process_stores_nothing_and_names_ns(tmp_path):
    """Issue 46: ns = 9·10^18 from a process that ran milliseconds was stored as verified."""
    journal = _journal(tmp_path, ns=9 * 10 ** 18)
    target = tmp_path / "target.sqlite"
    error = _one_line(parbench("load", str(journal), "--db", str(target)))
    assert "ns = 9000000000000000000, longer than its process's wall_ns" in error
    assert not target.exists()


def test_an_export_whose_sample_outlasts_its_process_is_one_line_naming_ns(tmp_path):
    good = _export(tmp_path, lambda sample: sample.update(ns=9 * 10 ** 18))
    error = _one_line(parbench("compare", str(good), str(tmp_path / "bad.json")))
    assert "ns = 9000000000000000000, longer than its process's wall_ns" in error


# 6. Signals and flags that do what the docs say.
@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_a_signal_while_execs_shell_is_calibrated_exits_with_its_code_and_says_so(tmp_path, signum, code):
    slow_shell = tmp_path / "slow-sh"
    slow_shell.write_text('#!/bin/sh\nsleep 0.1\nexec sh "$@"\n')
    slow_shell.chmod(0o755)
    db = tmp_path / "s.sqlite"
    child = subprocess.Popen([sys.executable, "-m", "parbench", "exec", "-S", str(slow_shell), "-r", "2",
                              "--db", str(db), "true"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=default_sigint)
    time.sleep(2)                      # 50 calibration runs of 0.1 s: well inside them
    child.send_signal(signum)
    out, err = child.communicate(timeout=60)
    assert child.returncode == code, err
    assert "Traceback" not in err and signal.Signals(signum).name in err and "nothing is stored" in err


def test_a_failed_resume_creates_no_store(tmp_path):
    new = tmp_path / "deeper" / "new.sqlite"
    assert "no results store" in _one_line(parbench("run", "--resume", "latest", "--db", str(new)))
    assert not new.exists() and not new.parent.exists()


def test_resume_with_flags_that_contradict_the_stored_run_is_refused_naming_them(faulty_project, db):
    parbench("run", "--workload", "spawn-chain", "--model", "ok", "--scale", "smoke", "--db", db,
             root=faulty_project, check=True)
    with sqlite3.connect(db) as store:
        store.execute("UPDATE runs SET status = 'interrupted'")
    error = _one_line(parbench("run", "--resume", "1", "--workload", "spawn-chain", "--model", "slow", "--scale",
                               "seed", "--db", db, root=faulty_project))
    assert "--model slow (run 1: ok)" in error and "--scale seed (run 1: smoke)" in error
    assert "--workload" not in error                   # what run 1 asked for too: no contradiction
    assert sqlite3.connect(db).execute("SELECT status FROM runs").fetchone()[0] == "interrupted"


def test_ctrl_c_stops_the_sweep_advise_measure_runs_and_advise_itself(tmp_path):
    """advise --measure, started in the background by a script (SIGINT ignored), gets Ctrl-C while
    its sweep runs: the sweep stops as a sweep does (its run closed), and advise exits 130."""
    root = tmp_path / "project"
    (root / "impls").mkdir(parents=True)
    (root / "workloads").symlink_to(REPO / "workloads")
    (root / "impls" / "paced").symlink_to(FIXTURES / "paced")
    db = str(tmp_path / "s.sqlite")
    parbench("run", "--workload", "spawn-chain", "--model", "seq", "--param", "n=1000", "--scale", "smoke",
             "--processes", "2", "--repeat", "3", "--db", db, root=root, check=True)
    child = subprocess.Popen([sys.executable, "-m", "parbench", "advise", "--workload", "spawn-chain", "--param",
                              "n=64000", "--cores", "2", "--measure", "--processes", "2", "--db", db],
                             env={**os.environ, "PARBENCH_ROOT": str(root)},
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    deadline = time.time() + 120
    while time.time() < deadline and sqlite3.connect(db).execute(
            "SELECT COUNT(*) FROM runs WHERE kind = 'sweep'").fetchone()[0] == 0:
        time.sleep(0.2)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=120)
    assert child.returncode == 130, err
    assert "Traceback" not in err
    status = sqlite3.connect(db).execute("SELECT status FROM runs WHERE kind = 'sweep'").fetchone()[0]
    assert status in ("interrupted", "complete"), status


# 7. Exports their readers can read.
def _record(name: str, samples: list[int], extra: dict | None = None) -> Report:
    case = Case("exec", "exec", name, "command", {})
    run = CaseRun(case, "", status="ok")
    for index, ns in enumerate(samples):
        run.processes.append(ProcessMeasurement(index, 2_000_000, 1, 1, 1, 0, 0, 0, "ok"))
        run.repetitions.append(Repetition(index, 0, ns, 1, "d", True, extra or {"shell_startup_ns": 2_000_000}))
    record = RunRecord(1, "2026-01-01T00:00:00", "exec", {}, {"hostname": "h"}, {}, status="complete", kind="exec",
                       results=analyze([run], 1))
    return Report(record, [])


def test_pyperf_refuses_an_all_zero_run_in_one_line_and_pyperf_reads_what_it_writes(tmp_path):
    require_module("pyperf", "pip install -e '.[test]'")
    with pytest.raises(NotExportable, match="above 0"):
        by_name("pyperf").render([_record("true", [0, 0, 0])])
    written = tmp_path / "p.json"
    written.write_text(by_name("pyperf").render([_record("sleep", [0, 5_000_000, 6_000_000])]))
    shown = subprocess.run([sys.executable, "-m", "pyperf", "show", str(written)], capture_output=True, text=True)
    assert shown.returncode == 0 and "Traceback" not in shown.stderr, shown.stderr
    assert "1 of 3 processes" in json.loads(written.read_text())["metadata"]["parbench_left_out"]


ODD = "a|b\nc`d *e* <x>" + EVIL


def test_org_mode_reads_a_table_of_odd_names_cell_for_cell():
    orgparse = require_module("orgparse", "pip install -e '.[test]'")
    from orgparse.extra import Table, to_rich_text
    text = by_name("orgmode").render([_record(ODD, [5_000_000, 6_000_000])])
    assert orgparse.loads(text) is not None
    [table] = [t for t in to_rich_text(text) if isinstance(t, Table)]
    rows = list(table.rows)
    assert len(rows) == 2 and {len(row) for row in rows} == {5}, rows
    assert rows[1][0] == "a\\vert{}b\\nc`d *e* <x>\\x1b[2J\\x1b]0;pwned\\x07"


class _Cells(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.rows, self.cell = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag == "td":
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "td":
            self.rows[-1].append(self.cell)
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def test_asciidoc_reads_a_table_of_odd_names_cell_for_cell(tmp_path):
    asciidoc = shutil.which("asciidoc", path=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    require(asciidoc, "asciidoc is not installed: pip install -e '.[test]'")
    for name in (ODD, "plain `tick` and $$ twice"):
        source = tmp_path / "t.adoc"
        source.write_text(by_name("asciidoc").render([_record(name, [5_000_000, 6_000_000])]))
        converted = subprocess.run([asciidoc, "-b", "html5", "-s", "-o", "-", str(source)], capture_output=True,
                                   text=True)
        assert converted.returncode == 0 and not converted.stderr, converted.stderr
        cells = _Cells()
        cells.feed(converted.stdout)
        assert len(cells.rows) == 2 and {len(row) for row in cells.rows} == {5}, cells.rows
        assert "\n" not in cells.rows[1][0] and "\x1b" not in cells.rows[1][0]
        assert cells.rows[1][0] == (name.replace("\n", "\\n").replace(EVIL, "\\x1b[2J\\x1b]0;pwned\\x07")
                                    .replace("$$", "$\\x24"))


def test_markdown_shows_a_newline_and_an_escape_in_a_name_as_text():
    text = by_name("hyperfine-markdown").render([_record(ODD, [5_000_000, 6_000_000])])
    lines = text.splitlines()
    assert len(lines) == 3 and "\\n" in lines[2] and "\x1b" not in text


def test_the_parbench_script_finds_its_folder_without_coreutils_on_path(tmp_path):
    """Issue 46: a PATH without coreutils gave "dirname: not found", then blamed the wrong folder."""
    from conftest import REPO
    done = subprocess.run(["/bin/sh", str(REPO / "parbench"), "-h"], cwd=tmp_path, capture_output=True, text=True,
                          env={"PATH": str(tmp_path / "no-coreutils-here")}, timeout=60)
    assert done.returncode == 0 and "not found" not in done.stderr and "Usage" in done.stdout, done.stderr
