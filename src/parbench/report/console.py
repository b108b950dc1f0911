"""The console report: the answer first (the summary matrix), then a Benchee-style table and
comparison block per table of the run, the analyses, start-up and the cases without a timing."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table

from parbench.escaping import CONSOLE_OPTIONS, SafeConsole, one_line, styled
from parbench.records import RunRecord
from parbench.report.rows import (COLUMNS, drift_line, drift_mark, kernel_note, machine_ceiling_of, STARTUP_COLUMNS, Group, ceiling_note, comparison_lines,
                                  failure_rows, groups, measured_row, outlier_note, override_lines,
                                  startup_rows, steady_note)
from parbench.report.analyses import tables
from parbench.report.summary import summary


def print_analyses(analyses: list, console: Console) -> None:
    for title, header, rows, notes in tables(analyses, console=True):
        table = Table(title=title, title_justify="left", header_style="bold")
        for column in header:
            table.add_column(column, overflow="fold")
        for row in rows:
            table.add_row(*row)
        console.print(table)
        for note in notes:
            console.print(f"  {note}", highlight=False)
        console.print()


def print_summary(record: RunRecord, console: Console) -> None:
    runtimes, rows = summary(record)
    if not rows or record.kind == "exec":      # exec's commands are compared in their own table
        return
    table = Table(title="Summary: the best model of each runtime, its median and its speedup over the runtime's "
                        "seq (95% CI); below, its steady state, first repetition, cost per item and kernel; ★ the "
                        "fastest runtime of a row that compares runtimes at the same parameters, shared by ties",
                  title_justify="left", header_style="bold")
    table.add_column("table")
    for runtime in runtimes:
        table.add_column(runtime, overflow="fold")
    for row in rows:
        title = row.title + (f"\n(one runtime's own size: {row.own_sizes})" if row.own_sizes else "")
        table.add_row(title, *[cell.text() for cell in row.cells])
    console.print(table)
    console.print()


# (least, most) characters of the case table's columns that rich would otherwise size by their
# headers or squeeze: a case's label and its steady state on two lines at most, a family whole;
# CPU ("30% (process)") and the ceiling (a ratio, or "–") may take two.
CASE_COLUMN_WIDTHS = {"case": (20, None), "family": (13, None), "steady state": (16, None),
                      "95% CI of median": (None, 11), "CPU": (None, 9), "vs ceiling": (None, 8)}


def group_table(group: Group, analyses: list | None = None, columns: list[str] | None = None) -> Table:
    """One table's cases, one row each (the columns of rows.COLUMNS, or those of them given)."""
    columns = columns or COLUMNS
    mark = drift_mark(group, analyses)
    # collapse_padding: one space beside each rule, not two, so that the 15 columns fit a
    # 160-column terminal with no cell over two lines (tests/unit/report/test_console.py)
    table = Table(title=group.title + (f"  ⚠ {mark}" if mark else ""), title_justify="left", header_style="bold",
                  collapse_padding=True, pad_edge=False)
    for column in columns:
        least, most = CASE_COLUMN_WIDTHS.get(column, (None, None))
        table.add_column(column, justify="left" if column in ("case", "family") else "right", overflow="fold",
                         min_width=least, max_width=most)
    machine = machine_ceiling_of(group, analyses)
    for result in group.results:
        if result.stats is not None:
            row = measured_row(result, machine)
            table.add_row(*(row[COLUMNS.index(column)] for column in columns))
    return table


def print_group(group: Group, console: Console, analyses: list | None = None,
                drop_to_fit: tuple[str, ...] = (), keeps_them: str = "") -> None:
    """One table: every measured case of one workload and parameter set, then its comparisons.
    `drop_to_fit`: columns left out, in that order, until the table fits the console's width,
    said under it with `keeps_them` (what shows them all)."""
    measured = [r for r in group.results if r.stats is not None]
    if not measured:
        return
    columns = list(COLUMNS)
    table = group_table(group, analyses, columns)
    dropped = []
    unbounded = console.options.update(width=1 << 16)       # the table's own width, not clipped to the console's
    for column in drop_to_fit:
        if console.measure(table, options=unbounded).maximum <= console.width:
            break
        columns.remove(column)
        dropped.append(column)
        table = group_table(group, analyses, columns)
    console.print(table)
    if dropped:
        console.print(f"  left out to fit {console.width} columns: {', '.join(dropped)}"
                      + (f" ({keeps_them})" if keeps_them else ""), style="dim", highlight=False)
    machine = machine_ceiling_of(group, analyses)
    notes = [f"  {one_line(r.case.label)}: {outlier_note(r)}" for r in measured if outlier_note(r)]
    notes += [f"  {one_line(r.case.label)}: {ceiling_note(r, machine)}" for r in measured if ceiling_note(r, machine)]
    notes += [f"  {one_line(r.case.label)}: {kernel_note(r)}" for r in measured if kernel_note(r)]
    notes += [f"  {one_line(r.case.label)}: {steady_note(r)}" for r in measured if steady_note(r)]
    notes += [f"  {one_line(r.case.label)}: {one_line(r.case.note)}" for r in measured if r.case.note]
    for note in notes:
        console.print(note, style="dim", highlight=False)
    lines = comparison_lines(group)
    if len(lines) > 1:
        console.print(styled(("Comparison", "bold"), " (ratio of medians, 95% CI)"))
        width = max(len(l[0]) for l in lines)
        for label, fastest, seq in lines:
            console.print(f"  {label:<{width}}  {fastest:<44}  vs seq: {seq}", highlight=False)
    console.print()


def print_run(record: RunRecord, console: Console | None = None, analyses: list | None = None,
              tables: bool = True) -> None:
    """The whole report; `tables=False` leaves out the per-table detail (a live run printed it)."""
    console = console or SafeConsole(**CONSOLE_OPTIONS)
    m = record.machine
    console.print(styled((f"Run {record.id}", "bold"), f" ({record.kind}, scale {record.scale}, {record.status}) "
                         f"started {record.started_at} · {m.get('cpu')} · {m.get('logical_cpus')} CPUs · "
                         f"{m.get('os')} · parbench {m.get('parbench')} @ {m.get('git_commit')}"))
    if drift_line(analyses):
        console.print(drift_line(analyses), highlight=False)
    print_summary(record, console)
    if tables:
        for group in groups(record):
            print_group(group, console, analyses)
    if analyses:
        print_analyses(analyses, console)
    startup = startup_rows(record)
    if startup:
        table = Table(title="Start-up: a whole process that does no work (boot + harness overhead)",
                      title_justify="left", header_style="bold")
        for column in STARTUP_COLUMNS:
            table.add_column(column, justify="left" if column == "runtime" else "right")
        for row in startup:
            table.add_row(*row)
        console.print(table)
    failures = failure_rows(record)
    if failures:
        table = Table(title="Cases that did not produce a verified timing", title_justify="left",
                      header_style="bold red")
        for column in ("case", "outcome", "reason", "stderr (last line)"):
            table.add_column(column, overflow="fold")
        for row in failures:
            table.add_row(*row, style="red" if row[1] != "limit" else "yellow")
        console.print(table)
    for line in override_lines(record):
        console.print(styled(("scale override", "yellow"), f" {line}"), highlight=False)
