"""`parbench sweep`: runs a case family over workers, input size or task count, then fits the
law behind it (analysis/): USL/Amdahl, the crossover size, the per-task slopes."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

from parbench import suite as suite_stages
from parbench.analysis import crossover
from parbench.analysis.derived import analyze_sizes, analyze_tasks, analyze_workers
from parbench.plan import Request, make_plan
from parbench.records import Case, RunRecord
from parbench.run import Runner
from parbench.workloads import with_noop


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
    kind: str
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
        brackets = {crossover.refine_between(r["sizes"], r["ratio"])
                    for _, _, r in analyze_sizes(record, param) if r["sizes"]} - {None}
        return [{param: value} for value in sorted(int(b) for b in brackets) if value not in tried]
    return Strategy("size", param, [{param: v} for v in values], lambda record: analyze_sizes(record, param),
                    refine, refinements)


def tasks_strategy(param: str, counts: list[int]) -> Strategy:
    return Strategy("tasks", param, [{param: c} for c in counts], lambda record: analyze_tasks(record, param),
                    stop_after_failure=True)


def strategy_for(kind: str, workload, scale: str, cores: int, start: float, stop: float | None, factor: float,
                 refine: int, counts: tuple[int, ...]) -> Strategy:
    """The strategy a `parbench sweep KIND` asks for; ValueError when its range makes no sense."""
    if kind == "workers":
        return workers_strategy(cores)
    param = workload.swept_param
    largest = lambda value: max(value) if isinstance(value, list) else value
    if kind == "size":
        top = stop or largest(workload.scales[scale][param])
        if top < start:
            raise ValueError(f"--to ({top:g}) is below --from ({start:g}): a size sweep goes up")
        return size_strategy(param, geometric(start, top, factor), refine)
    values = list(counts) or geometric(largest(workload.scales["smoke"][param]), largest(workload.scales[scale][param]), 4)
    return tasks_strategy(param, values)


def default_workers(cores: int) -> tuple[int, ...]:
    """1, 2, 4 … up to the logical CPUs, and the CPUs themselves."""
    return tuple(sorted({2 ** i for i in range(cores.bit_length()) if 2 ** i <= cores} | {cores}))


class SweepKind:
    """`parbench sweep`: a strategy's rounds into one stored run, then the law it fits."""
    name = "sweep"

    def __init__(self, strategy: Strategy, request: Request, workloads, runtimes, described):
        self.strategy, self.request, self.workloads, self.runtimes = strategy, request, workloads, runtimes
        self.described = described

    def configure(self, suite) -> None:
        from parbench.errors import PipelineError
        from parbench.workloads import SpecError
        suite.runner = Runner(self.runtimes, with_noop(self.workloads), suite_stages.settings_for(self.request))
        suite.record = suite_stages.new_record(
            self.request, {name: d.info for name, d in self.described.items()}, kind="sweep")
        suite.record.options["sweep"] = self.strategy.kind
        try:
            plans = [self.plan_round(params, first=i == 0) for i, params in enumerate(self.strategy.rounds)]
        except SpecError as error:
            raise PipelineError(str(error)) from None
        suite.cases = plans[0] if plans else []

    def plan_round(self, params: dict[str, Any], first: bool) -> list[Case]:
        request = replace(self.request, params={**self.request.params, **params})
        plan = make_plan(request, self.workloads, self.runtimes, self.described)
        return (suite_stages.startup_cases(plan, self.described) if first else []) + plan.cases

    def rounds(self, suite):
        """Every round, then the refinements; a model that failed at N is not tried at 4N."""
        failed: set[tuple[str, str]] = set()
        pending, refinements, first = list(self.strategy.rounds), self.strategy.refinements, True
        while pending:
            cases = [c for c in self.plan_round(pending.pop(0), first) if (c.runtime, c.model) not in failed]
            first = False
            measured_before = len(suite.execution.done)
            yield cases
            if self.strategy.stop_after_failure:
                failed |= {(r.case.runtime, r.case.model) for r in suite.execution.done[measured_before:]
                           if r.status != "ok"}
            if not pending and refinements > 0:
                refinements -= 1
                pending = self.strategy.refine(suite_stages.load_analyzed(suite.store, suite.record.id))

    def analyses(self, record: RunRecord) -> list:
        return self.strategy.analyze(record)

    def print_result(self, suite) -> None:
        from parbench.report import console as console_report
        console_report.print_run(suite.record, suite.output.console, suite.analyses, tables=False)


