"""The answer first: for each table (a workload and its params) and each runtime, the best model
and its speedup over that runtime's `seq`, with the CI; the fastest case of the table marked;
limits and failures shown as what they are. Plain data, shared by the console, Markdown and HTML."""
from __future__ import annotations

from dataclasses import dataclass

from parbench.records import CaseResult, RunRecord
from parbench.report.rows import Group, groups, one_worker
from parbench.units import format_duration


@dataclass
class Cell:
    runtime: str
    case_key: str | None          # the best case (None: nothing of this runtime was measured)
    model: str = ""
    median_ns: float | None = None
    speedup: float | None = None  # its runtime's seq median / its median
    speedup_ci: tuple[float, float] | None = None
    significant: bool = True
    fastest: bool = False         # the fastest case of the whole table
    failure: str = ""             # every case of this runtime failed: the first outcome and reason
    one_worker: bool = False      # a parallel best case that used one worker

    def text(self) -> str:
        if self.case_key is None:
            return self.failure or "–"
        mark = "★ " if self.fastest else ""
        line = f"{mark}{self.model} · {format_duration(self.median_ns)}"
        if self.speedup is not None and self.model.split(" ×")[0] != "seq":
            low, high = self.speedup_ci or (self.speedup, self.speedup)
            line += (f" · {self.speedup:.2f}× seq [{low:.2f}–{high:.2f}]" if self.significant
                     else f" · ≈ seq (n.s. [{low:.2f}–{high:.2f}])")
        if self.one_worker:
            line += " · ran on 1 worker"
        return line


@dataclass
class Row:
    workload: str
    title: str                    # the workload and the params that tell its tables apart
    anchor: str                   # the details' anchor in the HTML page
    cells: list[Cell]


def _distinguishing(group: Group, siblings: list[Group]) -> str:
    varying = [k for k in group.params if len({str(g.params.get(k)) for g in siblings}) > 1]
    return " ".join(f"{k}={group.params[k]}" for k in varying)


def anchor_of(group: Group) -> str:
    text = group.workload + "-" + "-".join(f"{k}-{v}" for k, v in sorted(group.params.items()))
    return "t-" + "".join(ch if ch.isalnum() else "-" for ch in text)


def _cell(runtime: str, members: list[CaseResult], fastest_key: str | None) -> Cell:
    measured = [r for r in members if r.stats is not None]
    if not measured:
        first = members[0].run
        return Cell(runtime, None, failure=f"{first.status}: {first.reason[:80]}")
    best = min(measured, key=lambda r: r.stats.median_ns)
    model = best.case.model + (f" ×{best.case.workers}" if best.case.workers else "")
    cell = Cell(runtime, best.case.key, model, best.stats.median_ns,
                fastest=best.case.key == fastest_key, one_worker=one_worker(best))
    if best.vs_seq is not None:
        low, high = best.vs_seq.ratio_ci
        cell.speedup, cell.speedup_ci = 1 / best.vs_seq.ratio, (1 / high, 1 / low)
        cell.significant = best.vs_seq.significant
    elif best.case.family == "seq":
        cell.speedup = 1.0
    return cell


def summary(record: RunRecord) -> tuple[list[str], list[Row]]:
    """(runtimes, rows): one row per table of the run, one cell per runtime."""
    tables = groups(record)
    runtimes = list(dict.fromkeys(r.case.runtime for g in tables for r in g.results))
    rows = []
    for group in tables:
        siblings = [g for g in tables if g.workload == group.workload]
        measured = [r for r in group.results if r.stats is not None]
        fastest = min(measured, key=lambda r: r.stats.median_ns).case.key if measured else None
        cells = []
        for runtime in runtimes:
            members = [r for r in group.results if r.case.runtime == runtime]
            cells.append(_cell(runtime, members, fastest) if members else Cell(runtime, None))
        title = (group.workload + " " + _distinguishing(group, siblings)).strip()
        rows.append(Row(group.workload, title, anchor_of(group), cells))
    return runtimes, rows
