"""The console report: a Benchee-style table and comparison block per workload group."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table

from parbench.records import RunRecord
from parbench.report.rows import (COLUMNS, STARTUP_COLUMNS, comparison_lines, failure_rows, groups,
                                  measured_row, outlier_note, override_lines, startup_rows)


def print_analyses(analyses: list, console: Console) -> None:
    from parbench.report.analyses import tables
    for title, header, rows, notes in tables(analyses):
        table = Table(title=title, title_justify="left", header_style="bold")
        for column in header:
            table.add_column(column, overflow="fold")
        for row in rows:
            table.add_row(*row)
        console.print(table)
        for note in notes:
            console.print(f"  {note}", highlight=False)
        console.print()


def print_run(record: RunRecord, console: Console | None = None, analyses: list | None = None) -> None:
    console = console or Console()
    m = record.machine
    console.print(f"[bold]Run {record.id}[/] ({record.kind}, scale {record.scale}, {record.status}) "
                  f"started {record.started_at} · {m.get('cpu')} · {m.get('logical_cpus')} CPUs · "
                  f"{m.get('os')} · parbench {m.get('parbench')} @ {m.get('git_commit')}")
    for group in groups(record):
        measured = [r for r in group.results if r.stats is not None]
        if not measured:
            continue
        table = Table(title=group.title, title_justify="left", header_style="bold")
        for column in COLUMNS:
            table.add_column(column, justify="left" if column in ("case", "family") else "right")
        for result in measured:
            table.add_row(*measured_row(result))
        console.print(table)
        notes = [f"  {r.case.label}: {outlier_note(r)}" for r in measured if outlier_note(r)]
        notes += [f"  {r.case.label}: {r.case.note}" for r in measured if r.case.note]
        for note in notes:
            console.print(note, style="dim", highlight=False)
        lines = comparison_lines(group)
        if len(lines) > 1:
            console.print("[bold]Comparison[/] (ratio of medians, 95% CI)")
            width = max(len(l[0]) for l in lines)
            for label, fastest, seq in lines:
                console.print(f"  {label:<{width}}  {fastest:<44}  vs seq: {seq}", highlight=False)
        console.print()
    if analyses:
        print_analyses([a for a in analyses if a[0] != "time-split"], console)
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
        console.print(f"[yellow]scale override[/] {line}", highlight=False)
