"""Issue 46's properties for what arrives from outside: a figure read from a journal or an
exported JSON is refused in one line or is one a measurement could give (a repetition within its
process's wall time, the repetitions of a process within it together, one items count per case);
an invisible character (controls, bidi overrides and isolates, zero-width ones, line and paragraph
separators) never reaches a console or a human-readable export as itself; and parbench processes
creating one store at once all find it whole."""
from __future__ import annotations

import io
import json
import multiprocessing
import sys
import unicodedata

import unit_records
from hypothesis import example, given, settings, strategies as st
from rich.table import Table

import test_fuzz_boundaries  # noqa: F401 — registers and loads the suite's Hypothesis profiles
from parbench import escaping
from parbench.export import json_format
from parbench.export.base import Report
from parbench.store import codec, open_store
from parbench.store.schema import SCHEMA_VERSION

INT64 = st.integers(-(2 ** 63), 2 ** 63 - 1)
figures = st.one_of(INT64, st.integers(0, 10 ** 6), st.sampled_from([0, 1, 2 ** 63 - 1, 9 * 10 ** 18, -1]))
# (where, field) pairs a hostile file may change: a repetition's or a process's figure.
CHANGES = st.lists(st.tuples(st.sampled_from(["repetitions", "processes"]), st.integers(0, 5),
                             st.sampled_from(["ns", "items", "process", "wall_ns"]), figures), max_size=4)


def _applied(data: dict, changes) -> dict:
    for where, index, name, value in changes:
        rows = data[where]
        row = rows[index % len(rows)]
        if name in row:
            row[name] = value
    return data


def _possible(run) -> bool:
    walls = {p.index: p.wall_ns for p in run.processes}
    spent: dict[int, int] = {}
    for rep in run.repetitions:
        if rep.process not in walls or rep.ns > walls[rep.process]:
            return False
        spent[rep.process] = spent.get(rep.process, 0) + max(rep.ns, 0)
    return all(total <= walls[i] for i, total in spent.items()) and \
        len({r.items for r in run.repetitions if r.verified}) <= 1


@given(changes=CHANGES)
@example(changes=[("repetitions", 0, "ns", 9 * 10 ** 18)])          # issue 46: stored as verified by load
@example(changes=[("processes", 0, "wall_ns", 1)])
def test_a_journal_figure_is_refused_in_one_line_or_possible(changes):
    data = _applied(json.loads(json.dumps(codec.case_run_dict(unit_records.case_run()))), changes)
    try:
        run = codec.case_run_from_dict(data)
    except codec.BadShape as refusal:
        assert "\n" not in str(refusal)
        return
    assert _possible(run), data


@given(changes=CHANGES)
@example(changes=[("repetitions", 0, "ns", 9 * 10 ** 18)])          # issue 46: taken by compare
def test_an_exported_figure_is_refused_in_one_line_or_possible(tmp_path_factory, changes):
    document = json.loads(json_format.render([Report(unit_records.two_models(), [])]))
    result = document["results"][0]
    flat = {"processes": result["processes"],
            "repetitions": [s for p in result["processes"] for s in p["samples"]]}
    _applied(flat, changes)                  # the rows are the same objects as the document's
    path = tmp_path_factory.mktemp("export") / "run.json"
    path.write_text(json.dumps(document))
    try:
        records = json_format.read(path)
    except json_format.NotAnExport as refusal:
        assert "\n" not in str(refusal)
        return
    assert all(_possible(r.run) for record in records for r in record.results)


def _invisible(character: str) -> bool:
    return (unicodedata.category(character) in ("Cc", "Cf", "Zl", "Zp") and character not in "\n\t") \
        or "\ud800" <= character <= "\udfff"


INVISIBLE = [chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) in ("Cf", "Zl", "Zp")]
printed = st.lists(st.sampled_from(INVISIBLE) | st.characters(codec=None) | st.sampled_from("xgnp.exe \x1b\r"),
                   max_size=20).map("".join)
RENDERERS = [escaping.sanitised, escaping.one_line, escaping.markdown_cell, escaping.markdown_code_span,
             escaping.org_cell, escaping.org_verbatim, escaping.asciidoc_cell, escaping.asciidoc_monospace,
             escaping.html_text, lambda text: str(escaping.csv_cell(text))]


@given(text=printed, render=st.sampled_from(RENDERERS))
@example(text="x\u202egnp.exe", render=escaping.sanitised)           # issue 46: showed as xexe.png
@example(text="se\u200bq", render=escaping.markdown_cell)
def test_no_invisible_character_reaches_a_human_readable_format(text, render):
    shown = render(text)
    assert not any(_invisible(c) for c in shown), ascii(shown)


@given(text=printed)
@example(text="\u2066model\u2069\u202e")
def test_no_invisible_character_reaches_the_console_in_a_line_or_a_table_cell(text):
    out = io.StringIO()
    console = escaping.SafeConsole(file=out, force_terminal=False, width=100, **escaping.CONSOLE_OPTIONS)
    table = Table()
    table.add_column("name")
    table.add_row(text)
    console.print(f"model {text}")
    console.print(table)
    assert not any(_invisible(c) for c in out.getvalue()), ascii(out.getvalue())


def _create(path: str, barrier, results) -> None:
    barrier.wait()
    try:
        store = open_store(path)
        results.put(store._owned_version())
        store.close()
    except Exception as error:      # noqa: BLE001 — the property shows what went wrong
        results.put(str(error))


@settings(max_examples=5)           # processes, not strings: a few per default run
@given(count=st.integers(2, 6))
def test_parbench_processes_creating_one_store_at_once_all_find_it_whole(tmp_path_factory, count):
    """Issue 46: one of two runs on a new --db saw "its meta.schema_version is []"."""
    context = multiprocessing.get_context("fork")
    path, results, barrier = str(tmp_path_factory.mktemp("store") / "new.sqlite"), context.Queue(), context.Barrier(count)
    workers = [context.Process(target=_create, args=(path, barrier, results)) for _ in range(count)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [results.get(timeout=5) for _ in workers] == [SCHEMA_VERSION] * count
