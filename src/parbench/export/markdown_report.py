"""The Markdown report: the answer first (the summary), then the console's tables, for a README,
an issue or a pull request; its one home (`--export-markdown`, and report.md of `--out`)."""
from __future__ import annotations

from parbench.escaping import markdown_cell
from parbench.export.base import Exporter, Report
from parbench.export.views import machine_of, runtimes_of
from parbench.records import RunRecord
from parbench.report.rows import (COLUMNS, drift_line, drift_mark, kernel_note, machine_ceiling_of, STARTUP_COLUMNS, ceiling_note, comparison_lines, failure_rows,
                                  groups, measured_row, outlier_note, override_lines, startup_rows, steady_note)
from parbench.report.analyses import tables
from parbench.report.summary import summary


def _table(header: list[str], rows: list[list[str | tuple[str, ...]]]) -> list[str]:
    """A Markdown table; a cell given as lines is shown on as many, each escaped on its own."""
    lines = ["| " + " | ".join(map(markdown_cell, header)) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(map(_cell, row)) + " |" for row in rows]


def _cell(value: str | tuple[str, ...]) -> str:
    if isinstance(value, tuple):
        return "<br>".join(markdown_cell(line) for line in value if line)
    return markdown_cell(value)


def render_run(record: RunRecord, analyses: list | None = None) -> str:
    m = machine_of(record)
    out = [f"# parbench run {record.id} — scale {markdown_cell(record.scale)}", "", markdown_cell(
           f"{record.started_at} · {record.status} · {m.cpu} · {m.logical_cpus} logical CPUs · "
           f"{m.memory_gib} GiB · {m.os} · kernel {m.os_kernel} · parbench {m.parbench} @ {m.git_commit}"), ""]
    if drift_line(analyses):
        out += [drift_line(analyses)[0].upper() + drift_line(analyses)[1:] + ".", ""]
    runtimes, summary_rows = summary(record)
    if summary_rows and record.kind != "exec":
        out += ["## Summary", "",
                "The best model of each runtime per table, its median and its speedup over the runtime's seq (95% "
                "CI); below, its steady state, first repetition, cost per item and kernel; ★ the fastest runtime of "
                "a row that compares runtimes at the same parameters, shared by ties. A row of one runtime's own "
                "size is marked so and never starred.", ""]
        out += _table(["table"] + runtimes,
                      [[row.title + (f" (one runtime's own size: {row.own_sizes})" if row.own_sizes else "")]
                       + [cell.lines() for cell in row.cells] for row in summary_rows])
        out += [""]
    if record.runtimes:
        out += ["## Runtimes", ""] + _table(
            ["runtime", "version", "flags"],
            [[name, toolchain.version, toolchain.flags] for name, toolchain in runtimes_of(record)]) + [""]
    for group in groups(record):
        measured = [r for r in group.results if r.stats is not None]
        if not measured:
            continue
        mark, machine = drift_mark(group, analyses), machine_ceiling_of(group, analyses)
        out += [f"## {markdown_cell(group.title)}", ""] + ([f"⚠ {markdown_cell(mark)}.", ""] if mark else []) + _table(
            COLUMNS, [[tuple(c.split("\n")) if "\n" in c else c for c in measured_row(r, machine)]
                      for r in measured]) + [""]
        notes = [f"{r.case.label}: {text}" for r in measured
                 for text in (outlier_note(r), ceiling_note(r, machine), kernel_note(r), steady_note(r)) if text]
        out += [f"- {markdown_cell(n)}" for n in notes] + ([""] if notes else [])
        lines = comparison_lines(group)
        if len(lines) > 1:
            out += _table(["case", "vs fastest (95% CI)", "vs its runtime's seq"], [list(l) for l in lines]) + [""]
    for title, header, rows, notes in tables(analyses or []):
        out += [f"## {markdown_cell(title)}", ""] + _table(header, rows) + [""] + [f"- {markdown_cell(n)}" for n in notes] + [""]
    startup = startup_rows(record)
    if startup:
        out += ["## Start-up: a whole process that does no work", ""] + _table(STARTUP_COLUMNS, startup) + [""]
    failures = failure_rows(record)
    if failures:
        out += ["## Cases without a verified timing", ""] + _table(
            ["case", "outcome", "reason", "stderr (last line)"], failures) + [""]
    overrides = override_lines(record)
    if overrides:
        out += ["## Scale overrides", ""] + [f"- {markdown_cell(line)}" for line in overrides] + [""]
    return "\n".join(out)


def render(reports: list[Report]) -> str:
    return "\n\n".join(render_run(r.record, r.analyses) for r in reports) + "\n"


EXPORTER = Exporter("markdown", "md", "the Markdown report: the summary first, then every table", render)
