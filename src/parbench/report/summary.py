"""The answer first: for each table (a workload and its params) and each runtime, the best model
and its speedup over that runtime's `seq`, with the CI; the fastest case of the table marked;
limits and failures shown as what they are. Plain data, shared by the console, Markdown and HTML."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from parbench.records import CaseResult, RunRecord
from parbench.report.rows import Group, groups, median_extra, never_overlapped, one_worker
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
    outcome: str = ""             # nothing measured: "limit" when every case hit one, else the first failure's
    failed: list[tuple[str, str]] = field(default_factory=list)   # (model, outcome) of cases without a timing
    baseline: bool = False        # the best case is the seq its runtime's others are measured against
    rival: Cell | None = None     # the best is that seq: the runtime's fastest other case, what parallelism costs
    cluster_start_ns: float | None = None   # a distributed case: its cluster's start-up, outside the timing
    cluster: str = ""             # extra.cluster: "local", or "remote" (its memory is not measured)

    @property
    def deciding(self) -> Cell:
        """The case whose speedup over seq answers "does parallelism pay here": the best, or its
        rival when the best is the seq itself."""
        return self.rival if self.baseline and self.rival is not None else self

    @property
    def verdict(self) -> str:
        """faster | slower (than seq, significantly) | same (no significant difference) | no-seq |
        seq-only (nothing to compare with) | limit | failed | absent (the runtime has no such case)."""
        if self.case_key is None:
            return ("limit" if self.outcome == "limit" else "failed") if self.outcome else "absent"
        deciding = self.deciding
        if deciding.baseline:
            return "seq-only"
        if deciding.speedup is None:
            return "no-seq"
        if not deciding.significant:
            return "same"
        return "faster" if deciding.speedup > 1 else "slower"

    @property
    def heat(self) -> float | None:
        """log2 of the deciding speedup where it is significant (0 = as fast as seq), else None."""
        return math.log2(self.deciding.speedup) if self.verdict in ("faster", "slower") else None

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


def _model(result: CaseResult) -> str:
    return result.case.model + (f" ×{result.case.workers}" if result.case.workers else "")


def _measured(runtime: str, result: CaseResult, fastest_key: str | None) -> Cell:
    cell = Cell(runtime, result.case.key, _model(result), result.stats.median_ns,
                fastest=result.case.key == fastest_key, one_worker=one_worker(result) or never_overlapped(result),
                cluster_start_ns=median_extra(result, "cluster_start_ns"),
                cluster=next((str(r.extra["cluster"]) for r in result.run.repetitions if "cluster" in r.extra), ""))
    if result.vs_seq is not None:
        low, high = result.vs_seq.ratio_ci
        cell.speedup, cell.speedup_ci = 1 / result.vs_seq.ratio, (1 / high, 1 / low)
        cell.significant = result.vs_seq.significant
    elif result.case.family == "seq":
        cell.speedup, cell.baseline = 1.0, True
    return cell


def _cell(runtime: str, members: list[CaseResult], fastest_key: str | None) -> Cell:
    measured = sorted((r for r in members if r.stats is not None), key=lambda r: r.stats.median_ns)
    failed = [(_model(r), r.run.status) for r in members if r.stats is None]
    if not measured:
        first = members[0].run
        outcome = "limit" if all(r.run.status == "limit" for r in members) else next(
            r.run.status for r in members if r.run.status != "limit")
        return Cell(runtime, None, failure=f"{first.status}: {first.reason[:80]}", outcome=outcome,
                    failed=failed)
    cell = _measured(runtime, measured[0], fastest_key)
    cell.failed = failed
    if cell.baseline:
        rival = next((r for r in measured[1:] if r.vs_seq is not None), None)
        cell.rival = _measured(runtime, rival, fastest_key) if rival else None
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
