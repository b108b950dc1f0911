"""`parbench sweep`: runs a case family over workers, input size or task count, then fits the
law behind it (analysis/): USL/Amdahl, the crossover size, the per-task slopes."""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable, Iterator

from parbench.analysis import crossover
from parbench.analysis.derived import analyze_sizes, analyze_tasks, analyze_workers
from parbench.errors import PipelineError
from parbench.escaping import styled
from parbench.measure import runtimes as runtimes_module
from parbench.measure.protocol import START_MODES
from parbench.measure.runner import WorkloadRunner
from parbench.measure.runtimes import Description
from parbench.plan.cases import Request, choose_runtimes, make_plan
from parbench.plan.from_request import describe_runtimes, new_record, settings_for, startup_cases
from parbench.records import Case, RunRecord
from parbench.report import console as console_report
from parbench.store.analyzed import load_analyzed
from parbench.workloads import SpecError, Workload, load_all, with_noop

if TYPE_CHECKING:                     # the pipeline drives the kinds; they only read what it hands them
    from parbench.pipeline import Invocation

SWEEPS = ("workers", "size", "tasks")


def geometric(start: float, stop: float, factor: float) -> list[int]:
    values, value = [], float(start)
    while value < stop * 1.0001:
        values.append(int(round(value)))
        value *= factor
    if values[-1] != int(stop):
        values.append(int(stop))
    return sorted(set(values))


@dataclass
class Strategy:
    """What a sweep varies, round by round, and the law it fits afterwards. `rounds` are the
    param overrides measured first; `refine(record)` may add rounds from what they showed."""
    axis: str                                # workers | size | tasks
    param: str | None
    rounds: list[dict[str, Any]]
    analyze: Callable[[RunRecord], list[tuple[str, str, dict]]]
    refine: Callable[[RunRecord], list[dict[str, Any]]] = lambda record: []
    refinements: int = 0
    stop_after_failure: bool = False      # tasks: a model that failed at N is not tried at 4N


def workers_strategy(cores: int) -> Strategy:
    return Strategy("workers", None, [{}], lambda record: analyze_workers(record, cores))


def size_strategy(param: str, values: list[int], refinements: int) -> Strategy:
    def refine(record: RunRecord) -> list[dict[str, Any]]:
        tried = {r.case.params.get(param) for r in record.results}
        brackets = {crossover.refine_between(r.sizes, r.ratio)
                    for name, _, r in analyze_sizes(record, param) if name == "crossover" and r.sizes} - {None}
        return [{param: value} for value in sorted(int(b) for b in brackets) if value not in tried]
    return Strategy("size", param, [{param: v} for v in values], lambda record: analyze_sizes(record, param),
                    refine, refinements)


def tasks_strategy(param: str, counts: list[int]) -> Strategy:
    return Strategy("tasks", param, [{param: c} for c in counts], lambda record: analyze_tasks(record, param),
                    stop_after_failure=True)


def strategy_for(axis: str, workload, scale: str, cores: int, start: float, stop: float | None, factor: float,
                 refine: int, counts: tuple[int, ...]) -> Strategy:
    """The strategy a `parbench sweep AXIS` asks for; ValueError when its range makes no sense."""
    if axis == "workers":
        return workers_strategy(cores)
    param = workload.swept_param
    largest = lambda value: max(value) if isinstance(value, list) else value
    if axis == "size":
        top = stop or largest(workload.scales[scale][param])
        if top < start:
            raise ValueError(f"--to ({top:g}) is below --from ({start:g}): a size sweep goes up")
        return size_strategy(param, geometric(start, top, factor), refine)
    values = list(counts) or geometric(largest(workload.scales["smoke"][param]), largest(workload.scales[scale][param]), 4)
    return tasks_strategy(param, values)


def default_workers(cores: int) -> tuple[int, ...]:
    """1, 2, 4 … up to the logical CPUs, and the CPUs themselves."""
    return tuple(sorted({2 ** i for i in range(cores.bit_length()) if 2 ** i <= cores} | {cores}))


@dataclass
class SweepRequest:
    """What `parbench sweep AXIS` asks beyond a run's request: the range of the swept value."""
    axis: str                                # workers | size | tasks
    start: float = 64                        # size: the smallest value
    stop: float | None = None                # size: the largest (default: the scale's)
    factor: float = 4                        # size: the geometric step
    refine: int = 2                          # size: bisection steps near each crossing
    counts: tuple[int, ...] = ()             # tasks: the counts (default: smoke's to the scale's, ×4)


class SweepKind:
    """`parbench sweep`: a strategy's rounds into one stored run, then the law it fits."""
    name = "sweep"
    of_workloads, resumable, live_tables = True, False, True

    def __init__(self, sweep: SweepRequest, request: Request):
        self.sweep, self.request = sweep, request
        self.workloads: dict[str, Workload] = {}
        self.runtimes: dict = {}
        self.described: dict[str, Description] = {}
        self.strategy: Strategy | None = None

    def configure(self, invocation: Invocation) -> None:
        """Names checked once (make_plan), then the strategy, the runner and the record."""
        self.workloads, self.runtimes = load_all(), runtimes_module.load_all()
        cores = os.cpu_count() or 1
        try:
            self.described, skipped = describe_runtimes(self.runtimes, choose_runtimes(self.request, self.runtimes))
            for line in skipped:
                invocation.output.console.print(styled(("skip", "yellow"), f" {line}"), highlight=False)
            if not self.described:
                raise PipelineError("no installed runtime to sweep")
            chosen = make_plan(self.request, self.workloads, self.runtimes, self.described).workloads
            if self.sweep.axis != "workers" and len(chosen) != 1:
                raise PipelineError(f"a {self.sweep.axis} sweep varies one workload's param: "
                                    f"pick one with --workload ({', '.join(chosen)})")
            self.request = self._completed(self.request, chosen[0], cores)
            s = self.sweep
            self.strategy = strategy_for(s.axis, self.workloads[chosen[0]], self.request.scale, cores, s.start,
                                         s.stop, s.factor, s.refine, s.counts)
            plans = [self.plan_round(params, first=i == 0) for i, params in enumerate(self.strategy.rounds)]
        except (SpecError, ValueError) as error:
            raise PipelineError(str(error)) from None
        invocation.runner = WorkloadRunner(self.runtimes, with_noop(self.workloads), settings_for(self.request))
        invocation.record = new_record(self.request, self.described, "sweep", invocation.runner.settings)
        invocation.record.options["sweep"] = self.strategy.axis
        invocation.cases = plans[0] if plans else []

    def _completed(self, request: Request, workload: str, cores: int) -> Request:
        """A workers sweep's default counts; a size sweep's seq models beside the named ones; both
        run every start mode a model offers, side by side, unless `--param start=…` picks one
        (a crossover or a scaling curve is a different answer for a warm pool and a cold one)."""
        if self.sweep.axis in ("workers", "size") and "start" not in request.params:
            request = replace(request, params={**request.params, "start": list(START_MODES)})
        if self.sweep.axis == "workers":
            return replace(request, workers=request.workers or default_workers(cores))
        if self.sweep.axis == "size":
            return replace(request, models=with_seq(request.models, self.described, workload))
        return request

    def plan_round(self, params: dict[str, Any], first: bool) -> list[Case]:
        request = replace(self.request, params={**self.request.params, **params})
        plan = make_plan(request, self.workloads, self.runtimes, self.described)
        return (startup_cases(plan, self.described) if first else []) + plan.cases

    def rounds(self, invocation: Invocation) -> Iterator[list[Case]]:
        """Every round, then the refinements; a model that failed at N is not tried at 4N."""
        failed: set[tuple[str, str]] = set()
        pending, refinements, first = list(self.strategy.rounds), self.strategy.refinements, True
        while pending:
            cases = [c for c in self.plan_round(pending.pop(0), first) if (c.runtime, c.model) not in failed]
            first = False
            measured_before = len(invocation.execution.done)
            yield cases
            if self.strategy.stop_after_failure:
                failed |= {(r.case.runtime, r.case.model) for r in invocation.execution.done[measured_before:]
                           if r.status != "ok"}
            if not pending and refinements > 0:
                refinements -= 1
                pending = self.strategy.refine(load_analyzed(invocation.store, invocation.record.id))

    def analyses(self, record: RunRecord) -> list:
        return self.strategy.analyze(record)

    def print_result(self, invocation: Invocation) -> None:
        console_report.print_run(invocation.record, invocation.output.console, invocation.analyses, tables=False)


def with_seq(models: tuple[str, ...], described: dict[str, Description], workload: str) -> tuple[str, ...]:
    """A size sweep compares against seq: named models get each runtime's seq model too."""
    if not models:
        return models
    offered = {name: m for d in described.values() for name, m in d.models_of(workload).items()}
    seqs = tuple(name for name, m in offered.items() if m.family == "seq" and name not in models)
    return tuple(models) + seqs
