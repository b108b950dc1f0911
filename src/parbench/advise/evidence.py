"""The stored measurements that bear on a question: per runtime × model × fixed parameters (a
`Series`), each verified case as a point (swept value, workers, median with its 95 % CI, peak
memory) and the run it came from. Read from the store's raw samples, statistics re-derived: the
steady median, or (advise --for first-run) the median of each process's first repetition."""
from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from parbench.advise.question import FIRST_RUN, Question
from parbench.analysis import stats
from parbench.records import CaseRun, CaseStats, RunRecord


@dataclass(frozen=True)
class Point:
    value: float                   # the swept parameter
    workers: int | None            # None: a model that takes no workers (seq)
    median_ns: float
    low_ns: float                  # the median's 95 % CI
    high_ns: float
    peak_bytes: float | None       # the process tree's peak
    run_id: int
    run_kind: str                  # "suite", or the sweep's kind: "sweep size", "sweep workers"…
    # The verified samples grouped by process: what a crossover against seq bootstraps.
    groups: tuple = field(default=(), repr=False, compare=False)


@dataclass
class Series:
    runtime: str
    model: str
    family: str
    context: tuple[tuple[str, Any], ...]        # the fixed params, sorted: one ranking each
    points: list[Point] = field(default_factory=list)
    # Verified cases left out because the store has no figure of the one asked for (a first
    # repetition, in runs from before protocol 4): said, never replaced by the steady figure.
    without_figure: int = 0

    @property
    def name(self) -> str:
        start = dict(self.context).get("start")
        return f"{self.runtime} {self.model}" + (f" {start}" if start else "")

    def at_workers(self, workers: int | None) -> list[Point]:
        return sorted((p for p in self.points if p.workers == workers), key=lambda p: p.value)

    def worker_counts(self) -> list[int | None]:
        return sorted({p.workers for p in self.points}, key=lambda w: w or 0)


@dataclass
class Evidence:
    series: list[Series]
    machine: dict[str, Any]        # the machine the points were measured on
    run_ids: list[int]
    note: str = ""


def machine_runs(records: list[RunRecord], cores: int = 1) -> tuple[list[RunRecord], str]:
    """The runs of one machine: this one where it has at least the cores asked about; else the
    machine of the store (a fleet's, or one loaded from another machine's export) that has them,
    the closest in cores and then the most recently measured, so that a question about 16 cores
    is answered from 16-core measurements rather than extrapolated from 2; else this machine's
    runs, else the newest run's machine. A machine is its hostname and its logical CPUs (two
    machines made from one image share a hostname)."""
    machines: dict[tuple[str, int], list[RunRecord]] = {}
    for record in records:
        key = (str(record.machine.get("hostname")), int(record.machine.get("logical_cpus") or 0))
        machines.setdefault(key, []).append(record)
    here = (socket.gethostname(), os.cpu_count() or 1)
    big_enough = [m for m in machines if m[1] >= cores]
    if here in big_enough or (not big_enough and here in machines):
        return machines[here], ""
    if big_enough:
        chosen = min(big_enough, key=lambda m: (m[1], -max(r.id or 0 for r in machines[m])))
        return machines[chosen], (f"answered from the runs of machine '{chosen[0]}' with {chosen[1]} logical CPUs "
                                  f"(this one, '{here[0]}', has {here[1]}): measured there, not extrapolated")
    if not records:
        return [], ""
    newest = (str(records[-1].machine.get("hostname")), int(records[-1].machine.get("logical_cpus") or 0))
    return machines[newest], (f"no run of this machine in the store: the evidence is machine "
                              f"'{newest[0]}''s ({newest[1]} logical CPUs)")


def _matches(run: CaseRun, question: Question) -> bool:
    case = run.case
    return (case.workload == question.workload and run.status == "ok" and question.param in case.params
            and isinstance(case.params[question.param], (int, float))
            and (not question.runtimes or case.runtime in question.runtimes)
            and (not question.families or case.family in question.families or case.family == "seq")
            and all(case.params.get(k) == v for k, v in question.context.items()))


class NoFigure(Exception):
    """A verified case whose store holds no figure of the kind asked for."""


def first_run_groups(run: CaseRun) -> list[np.ndarray]:
    """Each process's first repetition, one group of one: what the runner stored with the
    process's first timed repetition (runner._warm_up: `first_ns`, warm-up included)."""
    firsts: dict[int, float] = {}
    for rep in run.repetitions:
        value = rep.extra.get("first_ns")
        if (rep.verified and rep.process >= 0 and rep.process not in firsts
                and isinstance(value, (int, float)) and not isinstance(value, bool)):
            firsts[rep.process] = float(value)
    return [np.asarray([v]) for v in firsts.values()]


def figure_of(run: CaseRun, figure: str, measured: CaseStats) -> tuple[float, float, float, tuple]:
    """The case's median, its 95 % CI and the groups behind them, of the figure asked for;
    NoFigure where the store has none of it."""
    if figure != FIRST_RUN:
        return measured.median_ns, *measured.median_ci_ns, tuple(stats.grouped_samples(run))
    groups = first_run_groups(run)
    if not groups:
        raise NoFigure
    low, high = stats.confidence_interval(stats.bootstrap_medians(groups))
    return float(np.median(np.concatenate(groups))), low, high, tuple(groups)


def _point(run: CaseRun, record: RunRecord, question: Question, figure: str) -> Point | None:
    measured = stats.case_stats(run, record.machine.get("logical_cpus"))
    if measured is None:
        return None
    median, low, high, groups = figure_of(run, figure, measured)
    # A zero value or time has no logarithm: such a case (no work timed) predicts nothing.
    if run.case.params[question.param] <= 0 or low <= 0:
        return None
    kind = record.kind + (f" {record.options['sweep']}" if record.options.get("sweep") else "")
    return Point(float(run.case.params[question.param]), run.case.workers, median, low, high,
                 measured.peak_rss_kb * 1024.0 if measured.peak_rss_kb else None, record.id, kind, groups)


def gather(records: list[RunRecord], question: Question, figure: str | None = None) -> Evidence:
    """Every verified case of the question's workload and fixed params; where the same point was
    measured in several runs, the newest run's. `figure`: the one the points carry (default:
    the one the question answers)."""
    figure = figure or question.answers
    chosen, note = machine_runs(records, question.cores)
    by_key: dict[tuple, Series] = {}
    for record in sorted(chosen, key=lambda r: r.id or 0):
        for result in record.results:
            run = result.run
            if not _matches(run, question):
                continue
            case = run.case
            context = tuple(sorted((k, v) for k, v in case.params.items() if k != question.param))
            series = by_key.setdefault((case.runtime, case.model, context),
                                       Series(case.runtime, case.model, case.family, context))
            try:
                point = _point(run, record, question, figure)
            except NoFigure:
                series.without_figure += 1
                continue
            if point is not None:
                series.points = [p for p in series.points
                                 if (p.value, p.workers) != (point.value, point.workers)] + [point]
    series = [s for s in by_key.values() if s.points or s.without_figure]
    runs = sorted({p.run_id for s in series for p in s.points})
    machine = next((r.machine for r in reversed(chosen) if r.id in runs), chosen[-1].machine if chosen else {})
    return Evidence(series, machine, runs, note)
