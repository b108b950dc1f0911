"""`parbench compare`: the same cases in two runs, B against A, with significance."""
from __future__ import annotations

from dataclasses import dataclass

from rich.console import Console
from rich.table import Table

from parbench.analysis.compare import compare
from parbench.analysis.stats import grouped_samples
from parbench.escaping import one_line, styled
from parbench.records import Comparison, RunRecord
from parbench.units import format_duration


@dataclass
class PairedCase:
    key: str
    median_a: float | None
    median_b: float | None
    comparison: Comparison | None
    note: str = ""
    only_in: int | None = None        # the run that holds the case, where the other lacks it


def pair_cases(a: RunRecord, b: RunRecord) -> list[PairedCase]:
    in_a = {r.case.key: r for r in a.results}
    in_b = {r.case.key: r for r in b.results}
    rows = []
    for key in list(in_a) + [k for k in in_b if k not in in_a]:
        ra, rb = in_a.get(key), in_b.get(key)
        if ra is None or rb is None:
            holder = a.id if rb is None else b.id
            rows.append(PairedCase(key, None, None, None, f"only in run {holder}", only_in=holder))
        elif (ra.stats is not None and ra.stats.min_ns <= 0) or (rb.stats is not None and rb.stats.median_ns <= 0):
            # exec's shell-corrected time can be 0: no ratio against it, nor of it
            zero = a.id if ra.stats is not None and ra.stats.min_ns <= 0 else b.id
            rows.append(PairedCase(key, ra.stats and ra.stats.median_ns, rb.stats and rb.stats.median_ns, None,
                                   f"no ratio: run {zero} reads 0 once the shell's start-up is subtracted"))
        elif ra.stats is None or rb.stats is None:
            status = ra.run.status if ra.stats is None else rb.run.status
            rows.append(PairedCase(key, ra.stats and ra.stats.median_ns, rb.stats and rb.stats.median_ns,
                                   None, f"no verified timing in one run ({status})"))
        else:
            rows.append(PairedCase(key, ra.stats.median_ns, rb.stats.median_ns,
                                   compare(grouped_samples(rb.run), grouped_samples(ra.run), key)))
    return rows


def regressions(rows: list[PairedCase], threshold_pct: float) -> list[PairedCase]:
    return [r for r in rows if r.comparison and r.comparison.significant
            and r.comparison.ratio > 1 + threshold_pct / 100]


def missing(rows: list[PairedCase]) -> list[PairedCase]:
    """The cases one run lacks: a case renamed or dropped between the runs is no case that held."""
    return [r for r in rows if r.only_in is not None]


def machine_line(record: RunRecord) -> str:
    """Which machine and software measured a run (pyperf's lesson: compare with the metadata)."""
    m = record.machine
    return one_line(f"run {record.id} ({record.kind}, scale {record.scale}, {record.started_at}): {m.get('hostname')} · "
                    f"{m.get('cpu')} · {m.get('logical_cpus')} CPUs · {m.get('memory_gib')} GiB · {m.get('os')} · "
                    f"kernel {m.get('os_kernel')} · parbench @ {m.get('git_commit')}")   # an export's fields, on one line


def print_comparison(a: RunRecord, b: RunRecord, rows: list[PairedCase], console: Console,
                     drifts: tuple[str, str] = ("", "")) -> None:
    """Each side with its machine and its own sitting's drift (nothing normalised), then the pairs."""
    for name, record, drift in (("A", a, drifts[0]), ("B", b, drifts[1])):
        console.print(f"{name}: {machine_line(record)}", highlight=False)
        console.print(f"   {drift or 'no drift sentinel in this run (measured before protocol 2)'}", highlight=False)
    if a.machine.get("hostname") != b.machine.get("hostname") or a.machine.get("cpu") != b.machine.get("cpu"):
        console.print(styled(("different machines:", "yellow"), " the ratios compare machines as well as runs"), highlight=False)
    table = Table(title=f"Run {b.id} against run {a.id} (ratio of medians, 95% CI)", title_justify="left",
                  header_style="bold")
    for column in ("case", f"run {a.id}", f"run {b.id}", "ratio", "95% CI", "verdict"):
        table.add_column(column, overflow="fold")
    for row in rows:
        if row.comparison is None:
            table.add_row(one_line(row.key), _d(row.median_a), _d(row.median_b), "–", "–", row.note)
            continue
        c = row.comparison
        table.add_row(one_line(row.key), _d(row.median_a), _d(row.median_b), f"{c.ratio:.3f}",
                      f"{c.ratio_ci[0]:.3f} – {c.ratio_ci[1]:.3f}", c.sentence())
    console.print(table)


def _d(ns) -> str:
    return format_duration(ns) if ns else "–"
