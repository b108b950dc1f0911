"""Stage 2b: the order in which cases' fresh processes run, and when a case has enough of them.

The cases that share one table (one workload, one parameter set) run in rotation by default:
one process of each in turn, so a slow minute of a shared machine lands on all of them rather
than on whichever case happened to be running. Each case stops once the 95% CI of its median is
within the target (±3 % at the quick scale), or at its time budget, never below two processes
(pyperf's and Benchee's lesson). Every process is stored as soon as it is measured.
"""
from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Callable, Protocol, runtime_checkable

import numpy as np

from parbench.analysis.stats import bootstrap_medians, confidence_interval, grouped_samples
from parbench.measure.process import measured_so_far
from parbench.measure.runner import MIN_PROCESSES, Settings
from parbench.records import Case, CaseRun, ProcessMeasurement, Repetition
from parbench.units import format_duration

CONVERGENCE_RESAMPLES = 400     # enough to decide "tight enough"; the report uses 2000


@runtime_checkable
class ProcessRunner(Protocol):
    """What the scheduler asks of whatever runs one process of a case: runner.WorkloadRunner
    (workloads through runtimes) and exec's ExecRunner (commands) implement it
    (tests/unit/test_schedule.py checks both)."""
    settings: Settings
    workloads: dict                      # the workloads whose inputs are prepared before a round (exec: none)

    def expected(self, case: Case) -> str: ...
    def repetitions_per_process(self, case: Case) -> tuple[int, int]: ...
    def verify(self, case: Case) -> ProcessMeasurement | None: ...      # a failed first check, or None
    def one_process(self, case: Case, index: int, warmup: int,
                    repeat: int) -> tuple[ProcessMeasurement, list[Repetition]]: ...
    def group_finished(self, cases: list[Case]) -> None: ...            # after a table's last process


class Sink(Protocol):
    """Where measured processes go (the store, through the journal when it is unreachable)."""

    def case_started(self, run: CaseRun) -> None: ...
    def process_done(self, run: CaseRun, measurement: ProcessMeasurement, reps: list[Repetition]) -> None: ...
    def case_done(self, run: CaseRun) -> None: ...


@dataclass
class Progress:
    """What the console hears about: each finished case, each finished table."""
    case_started: Callable[[Case], None] = lambda case: None
    case_done: Callable[[CaseRun], None] = lambda run: None
    group_done: Callable[[list[CaseRun]], None] = lambda runs: None


@dataclass
class _Active:
    run: CaseRun
    warmup: int
    repeat: int
    spent_s: float = 0.0
    index: int = 0
    ok: int = 0                  # its fresh processes that passed, counted as each ends (exec may run 10,000)


@dataclass
class Execution:
    done: list[CaseRun] = field(default_factory=list)
    interrupted: bool = False
    interruption: BaseException | None = None           # the KeyboardInterrupt (or SIGTERM's Stopped)
    order: list[str] = field(default_factory=list)      # case keys, one per process, as they ran
    elapsed_ns: int = 0          # the scheduler's own time
    measured_ns: int = 0         # the walls of every process run meanwhile (verification runs too)
    processes_run: int = 0
    between_tables_ns: int = 0   # the drift sentinel and the machine's ceilings: measuring, not overhead

    def add_costs(self, other: "Execution") -> None:
        self.elapsed_ns += other.elapsed_ns
        self.measured_ns += other.measured_ns
        self.processes_run += other.processes_run
        self.between_tables_ns += other.between_tables_ns

    def overhead(self) -> dict:
        """The harness's own time outside the processes it measured, as stored with the run."""
        outside = self.elapsed_ns - self.measured_ns - self.between_tables_ns
        return {"elapsed_ns": self.elapsed_ns, "measured_ns": self.measured_ns,
                "between_tables_ns": self.between_tables_ns, "overhead_ns": outside, "processes": self.processes_run,
                "per_process_ns": outside / self.processes_run if self.processes_run else None}

    def overhead_line(self) -> str:
        """"harness overhead: 1.21 s outside its 412 processes (2.9 ms each; 3.0% of 40.1 s), besides
        4.2 s of drift sentinel and machine ceilings between tables"."""
        if not self.processes_run or not self.elapsed_ns:
            return ""
        cost = self.overhead()
        beside = (f", besides {format_duration(self.between_tables_ns)} of drift sentinel and machine ceilings "
                  "between tables" if self.between_tables_ns >= 1e6 else "")
        return (f"harness overhead: {format_duration(cost['overhead_ns'])} outside its {self.processes_run} "
                f"processes ({format_duration(cost['per_process_ns'])} each; "
                f"{100 * cost['overhead_ns'] / self.elapsed_ns:.1f}% of {format_duration(self.elapsed_ns)}){beside}")


def groups_of(cases: list[Case]) -> list[list[Case]]:
    """Cases that share one table, in the plan's order of first appearance."""
    out: dict[tuple, list[Case]] = {}
    for case in cases:
        out.setdefault(case.table, []).append(case)
    return list(out.values())


def converged(run: CaseRun, target: float | None) -> bool:
    """The 95% CI of the median within ±target of it (the report's two-level bootstrap)."""
    if target is None:
        return False
    groups = grouped_samples(run)
    if len(groups) < MIN_PROCESSES:
        return False
    median = float(np.median(np.concatenate(groups)))
    low, high = confidence_interval(bootstrap_medians(groups, CONVERGENCE_RESAMPLES))
    return median > 0 and (high - low) / 2 <= target * median


def execute(cases: list[Case], runner: ProcessRunner, sink: Sink, progress: Progress,
            between_tables: Callable[[Case | None], None] = lambda after: None) -> Execution:
    """Runs every case, table by table; a KeyboardInterrupt ends it with the cases in flight
    marked `interrupted` (their processes kept) and `interrupted` set. `between_tables` runs
    before the first table (with None) and after each (with one of its cases): the drift
    sentinel and the machine's ceiling, never while a case runs."""
    execution = Execution()
    started, (runs_before, wall_before) = time.perf_counter_ns(), measured_so_far()

    def timed_between_tables(after: Case | None) -> None:
        began, wall = time.perf_counter_ns(), measured_so_far()[1]
        try:
            between_tables(after)
        finally:       # a ceiling measured under the launcher is not counted twice
            execution.between_tables_ns += (time.perf_counter_ns() - began) - (measured_so_far()[1] - wall)
    try:
        return _execute(cases, runner, sink, progress, timed_between_tables, execution)
    finally:
        runs, wall = measured_so_far()
        execution.elapsed_ns = time.perf_counter_ns() - started
        execution.measured_ns, execution.processes_run = wall - wall_before, runs - runs_before


def _execute(cases: list[Case], runner: ProcessRunner, sink: Sink, progress: Progress,
             between_tables: Callable[[Case | None], None], execution: Execution) -> Execution:
    settings = runner.settings
    shuffler = random.Random(settings.seed)
    between_tables(None)
    for group in groups_of(cases):
        active: list[_Active] = []
        try:
            for case in group:
                progress.case_started(case)
                started = _start(case, runner, sink)
                if started.run.status != "ok":
                    _finish(started.run, sink, progress, execution)
                else:
                    active.append(started)
            _rotate(active, runner, settings, sink, progress, execution, shuffler)
        except KeyboardInterrupt as interruption:
            execution.interruption = interruption
            for a in active:
                if a.run not in execution.done:
                    a.run.fail("interrupted", f"interrupted after {len(a.run.processes)} process(es)")
                    a.run.status = "interrupted"
                    _finish(a.run, sink, progress, execution, quiet=True)
            execution.interrupted = True
            return execution
        between_tables(group[0])
        progress.group_done([r for r in execution.done if r.case in group])
        runner.group_finished(group)
    return execution


def _start(case: Case, runner: ProcessRunner, sink: Sink) -> _Active:
    warmup, repeat = runner.repetitions_per_process(case)
    run = CaseRun(case, runner.expected(case))
    active = _Active(run, warmup, repeat)
    failed = runner.verify(case)
    sink.case_started(run)
    if failed is not None:
        sink.process_done(run, failed, [])
        run.processes.append(failed)
        run.fail(failed.outcome, failed.detail)
    return active


def _rotate(active: list[_Active], runner: ProcessRunner, settings: Settings, sink: Sink, progress: Progress,
            execution: Execution, shuffler: random.Random) -> None:
    if settings.order == "sequential":
        for a in active:
            while not _enough(a, settings):
                _one_more(a, runner, sink, execution)
            _finish(a.run, sink, progress, execution)
        return
    pending = list(active)
    while pending:
        if settings.order == "shuffled":
            shuffler.shuffle(pending)
        for a in list(pending):
            _one_more(a, runner, sink, execution)
            if _enough(a, settings):
                pending.remove(a)
                _finish(a.run, sink, progress, execution)


def _one_more(a: _Active, runner: ProcessRunner, sink: Sink, execution: Execution) -> None:
    measurement, reps = runner.one_process(a.run.case, a.index, a.warmup, a.repeat)
    measurement.sequence = len(execution.order)
    execution.order.append(a.run.case.key)
    a.index += 1
    a.spent_s += measurement.wall_ns / 1e9
    a.ok += measurement.outcome == "ok"
    a.run.processes.append(measurement)
    a.run.repetitions += reps
    for rep in reps:
        a.run.flags.update({k: v for k, v in rep.extra.items() if k.endswith("flags") or k == "workers"})
    if measurement.outcome != "ok":
        a.run.fail(measurement.outcome, measurement.detail)
    sink.process_done(a.run, measurement, reps)


def _enough(a: _Active, settings: Settings) -> bool:
    """A failure will not mend itself in the next process; otherwise stop at the process count,
    once converged, or once past the time budget (at MIN_PROCESSES at least)."""
    ok = a.ok
    if a.run.status != "ok" or a.index >= settings.processes:
        return True
    if ok < max(MIN_PROCESSES, settings.min_processes) or a.spent_s < settings.min_time:
        return False
    if settings.target_ci is None and settings.budget is None and settings.min_time:
        return True       # hyperfine's rule: at least min_processes and min_time, then stop
    if converged(a.run, settings.target_ci):
        a.run.flags["stopped"] = f"converged after {ok} processes"
        return True
    if settings.budget is not None and a.spent_s * (a.index + 1) / a.index > settings.budget:
        a.run.flags["stopped"] = f"time budget ({settings.budget:g} s) after {ok} of {settings.processes} processes"
        return True
    return False


def _finish(run: CaseRun, sink: Sink, progress: Progress, execution: Execution, quiet: bool = False) -> None:
    sink.case_done(run)
    execution.done.append(run)
    if not quiet:
        progress.case_done(run)
