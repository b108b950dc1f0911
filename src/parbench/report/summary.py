"""The answer first: for each table (a workload and its params) and each runtime, the best model,
its median, its cost per item and kernel class, and its speedup over that runtime's `seq`, with
the CI. A row where two or more runtimes ran the same parameters compares runtimes: every case
not significantly slower than its fastest shares the ★ (ties are ties), and each cell knows its
ratio to that fastest; a row that holds one runtime only (its own size) is marked, never starred.
Limits and failures are shown as what they are. Plain data, shared by the console, Markdown and HTML."""
from __future__ import annotations

import math
from dataclasses import dataclass, field

from parbench.analysis.steady_state import TOLERANCE as STEADY_TOLERANCE, is_marked, short_text
from parbench.records import CaseResult, RunRecord
from parbench.report.rows import (PROVEN, Group, check_mark, groups, interval_text, median_extra, never_overlapped,
                                  one_worker, rough_ci)
from parbench.units import format_duration, format_per_item
from parbench.workloads import load_all_cached


@dataclass
class Cell:
    runtime: str
    case_key: str | None          # the best case (None: nothing of this runtime was measured)
    model: str = ""
    median_ns: float | None = None
    speedup: float | None = None  # its runtime's seq median / its median
    speedup_ci: tuple[float, float] | None = None
    significant: bool = True
    fastest: bool = False         # the fastest case of the table, or not significantly slower (a tie)
    per_item_ns: float | None = None   # the median over the table's items (a byte, a key, a task…)
    item: str = ""                # the workload's unit, singular ("byte", "key", "doc", "unit", "task")
    kernel: str = ""              # portable | tuned, where the workload has kernel classes
    vs_fastest: float | None = None   # its median / the row's fastest median (1 = the fastest)
    failure: str = ""             # every case of this runtime failed: the first outcome and reason
    one_worker: bool = False      # a parallel best case that used one worker
    outcome: str = ""             # nothing measured: "limit" when every case hit one, else the first failure's
    failed: list[tuple[str, str]] = field(default_factory=list)   # (model, outcome) of cases without a timing
    baseline: bool = False        # the best case is the seq its runtime's others are measured against
    rival: Cell | None = None     # the best is that seq: the runtime's fastest other case, what parallelism costs
    cluster_start_ns: float | None = None   # a distributed case: its cluster's start-up, outside the timing
    cluster: str = ""             # extra.cluster: "local", or "remote" (its memory is not measured)
    partial: str = ""             # a case a stopped run cut short: how many processes it kept
    steady: str = ""              # its processes' steady-state class (analysis/steady_state.py)
    first_ns: float | None = None   # the median first repetition, where it differs from the steady one
    median_ci: tuple[float, float] | None = None   # the median's 95 % interval
    proof: str = PROVEN           # or what a verified answer proves instead (form checked, units unverified)

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

    def lines(self) -> tuple[str, str]:
        """(the answer, the detail): what a reader takes in at a glance (the model, its median and
        its interval, its speedup), then how it got there (its steady state in words, its first
        repetition, its proof, its cost per item and kernel, what else it is worth knowing)."""
        if self.case_key is None:
            return self.failure or "–", ""
        marked = is_marked(self.steady)
        mark = ("★⚠ " if marked else "★ ") if self.fastest else ("⚠ " if marked else "")
        head = f"{mark}{self.model} · {format_duration(self.median_ns)}"
        if self.median_ci:
            head += f" {interval_text(*self.median_ci)}"
        if self.speedup is not None and self.model.split(" ×")[0] != "seq":
            low, high = self.speedup_ci or (self.speedup, self.speedup)
            head += (f" · {self.speedup:.2f}× seq [{low:.2f}–{high:.2f}]" if self.significant
                     else f" · ≈ seq (n.s. [{low:.2f}–{high:.2f}])")
        detail = []
        if self.steady:      # the counts and levels are in its table
            detail.append(short_text(self.steady) + (f", 1st {format_duration(self.first_ns)}"
                                                     if self.first_ns is not None else ""))
        elif self.first_ns is not None:
            detail.append(f"1st {format_duration(self.first_ns)}")
        if self.proof != PROVEN:
            detail.append(self.proof)
        if self.per_item_ns is not None:
            detail.append(f"{format_per_item(self.per_item_ns)}/{self.item}")
        if self.kernel:
            detail.append(self.kernel)
        if self.one_worker:
            detail.append("ran on 1 worker")
        if self.partial:
            detail.append(self.partial)
        return head, " · ".join(detail)

    def text(self) -> str:
        """The cell on two lines (the console's, the HTML's title)."""
        head, detail = self.lines()
        return head + (f"\n{detail}" if detail else "")


@dataclass
class Row:
    workload: str
    title: str                    # the workload and the params that tell its tables apart
    anchor: str                   # the details' anchor in the HTML page
    cells: list[Cell]
    runtimes_measured: int = 0    # runtimes with a timing in this row: ≥ 2 compares runtimes
    own_sizes: str = ""           # a row of one runtime's own parameters: why they differ

    @property
    def compares_runtimes(self) -> bool:
        return self.runtimes_measured >= 2


def _distinguishing(group: Group, siblings: list[Group]) -> str:
    varying = [k for k in group.params if len({str(g.params.get(k)) for g in siblings}) > 1]
    return " ".join(f"{k}={group.params[k]}" for k in varying)


def anchor_of(group: Group) -> str:
    text = group.workload + "-" + "-".join(f"{k}-{v}" for k, v in sorted(group.params.items()))
    return "t-" + "".join(ch if ch.isalnum() else "-" for ch in text)


def _model(result: CaseResult) -> str:
    start = f" {result.case.params['start']}" if result.case.params.get("start") else ""
    return result.case.model + (f" ×{result.case.workers}" if result.case.workers else "") + start


def _singular(unit: str) -> str:
    if unit.endswith("ies"):                 # replies → reply
        return unit[:-3] + "y"
    return unit[:-1] if unit.endswith("s") else unit


def _measured(runtime: str, result: CaseResult, fastest_key: str | None) -> Cell:
    items = result.run.repetitions[0].items if result.run.repetitions else 0
    workload = load_all_cached().get(result.case.workload)
    cell = Cell(runtime, result.case.key, _model(result), result.stats.median_ns,
                per_item_ns=result.stats.median_ns / items if items else None,
                item=_singular(workload.items) if workload else "item",
                kernel=str(result.case.params.get("kernel", "")),
                fastest=result.case.key == fastest_key, one_worker=one_worker(result) or never_overlapped(result),
                cluster_start_ns=median_extra(result, "cluster_start_ns"),
                cluster=next((str(r.extra["cluster"]) for r in result.run.repetitions if "cluster" in r.extra), ""),
                partial=(f"partial: {len({r.process for r in result.run.repetitions if r.verified})} process(es) "
                         "before the run stopped" if result.run.status == "interrupted" else ""),
                steady=result.stats.steady_class, first_ns=_first_if_different(result),
                median_ci=result.stats.median_ci_ns,
                proof=check_mark(result.case))
    if result.vs_seq is not None:
        low, high = result.vs_seq.ratio_ci
        cell.speedup, cell.speedup_ci = 1 / result.vs_seq.ratio, (1 / high, 1 / low)
        cell.significant = result.vs_seq.significant
    elif result.case.family == "seq":
        cell.speedup, cell.baseline = 1.0, True
    return cell


def _first_if_different(result: CaseResult) -> float | None:
    """The median first repetition ("cold JIT": what a one-shot command pays), where it differs
    from the steady median by more than the steady-state tolerance; else None (nothing to add)."""
    first, steady = result.stats.first_median_ns, result.stats.median_ns
    if first is None or not steady or abs(first - steady) <= STEADY_TOLERANCE * steady:
        return None
    return first


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


def _tie_with_fastest(cell: Cell, results: dict[str, CaseResult], fastest: CaseResult) -> bool:
    """The best case of a runtime is not significantly slower than the row's fastest."""
    result = results.get(cell.case_key)
    if result is None or result.stats is None or rough_ci(result):
        return False          # a CI from two processes is too rough to crown anything
    if result.case.key == fastest.case.key:
        return True
    comparison = result.vs_fastest
    return comparison is not None and comparison.reference == fastest.case.key and not comparison.significant


def _rank(row: Row, results: dict[str, CaseResult], fastest: CaseResult | None) -> None:
    """Stars and ratios across runtimes, only where the row holds two runtimes or more."""
    measured = [c for c in row.cells if c.case_key is not None]
    row.runtimes_measured = len(measured)
    for cell in measured:
        cell.vs_fastest = cell.median_ns / fastest.stats.median_ns if fastest and fastest.stats.median_ns else None
        cell.fastest = row.compares_runtimes and fastest is not None and _tie_with_fastest(cell, results, fastest)
    if not row.compares_runtimes:
        overridden = next((r for r in results.values() if r.case.overrides), None)
        runtimes = {r.case.runtime for r in results.values()}
        row.own_sizes = ("; ".join(overridden.case.overrides) if overridden else
                         "the only runtime in this table" if len(runtimes) <= 1 else "")


def summary(record: RunRecord) -> tuple[list[str], list[Row]]:
    """(runtimes, rows): one row per table of the run, one cell per runtime; within a workload the
    rows that hold the most runtimes come first (the scale's common row, then the others)."""
    tables = groups(record)
    runtimes = list(dict.fromkeys(r.case.runtime for g in tables for r in g.results))
    rows = []
    for group in tables:
        siblings = [g for g in tables if g.workload == group.workload]
        measured = [r for r in group.results if r.stats is not None]
        fastest = min(measured, key=lambda r: r.stats.median_ns) if measured else None
        cells = []
        for runtime in runtimes:
            members = [r for r in group.results if r.case.runtime == runtime]
            cells.append(_cell(runtime, members, fastest.case.key if fastest else None) if members
                         else Cell(runtime, None))
        title = (group.workload + " " + _distinguishing(group, siblings)).strip()
        row = Row(group.workload, title, anchor_of(group), cells)
        _rank(row, {r.case.key: r for r in group.results}, fastest)
        rows.append(row)
    order = {id(row): index for index, row in enumerate(rows)}
    return runtimes, _common_rows_first(rows, order)


def _common_rows_first(rows: list[Row], order: dict[int, int]) -> list[Row]:
    workloads = list(dict.fromkeys(row.workload for row in rows))
    return [row for workload in workloads
            for row in sorted((r for r in rows if r.workload == workload),
                              key=lambda r: (-r.runtimes_measured, order[id(r)]))]
