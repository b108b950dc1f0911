"""`parbench sweep`: runs a case family over workers, input size or task count, then fits the
law behind it (analysis/): USL/Amdahl, the crossover size, the per-task slopes."""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Any, Callable

from parbench import suite
from parbench.analysis import batch_amdahl, crossover, per_task, scaling
from parbench.plan import Request, make_plan
from parbench.project import RESULTS_DIR
from parbench.records import Case, CaseResult, RunRecord
from parbench.run import Runner
from parbench.schedule import Execution, Progress, execute
from parbench.stats import grouped_samples
from parbench.store.sink import StoreSink
from parbench.workloads import load_all, with_noop


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


class Sweep:
    """Runs a strategy's rounds into one stored run, round by round."""

    def __init__(self, strategy: Strategy, request: Request, workloads, runtimes, described, store,
                 progress: Progress):
        self.strategy, self.request, self.workloads, self.runtimes = strategy, request, workloads, runtimes
        self.described, self.store, self.progress = described, store, progress
        self.runner = Runner(runtimes, with_noop(workloads), suite.settings_for(request))
        self.record = suite.new_record(request, {name: {k: d.get(k, "") for k in ("version", "flags", "sources")}
                                                 for name, d in described.items()}, kind="sweep")
        self.record.options["sweep"] = strategy.kind
        self.sink: StoreSink | None = None
        self.interruption: BaseException | None = None

    def begin(self, owner: str) -> None:
        self.store.begin_run(self.record, owner)
        self.sink = StoreSink(self.store, self.record, RESULTS_DIR / "journal")

    def plan_round(self, params: dict[str, Any], first: bool) -> list[Case]:
        request = replace(self.request, params={**self.request.params, **params})
        plan = make_plan(request, self.workloads, self.runtimes, self.described)
        return (suite.startup_cases(plan, self.described) if first else []) + plan.cases

    def run(self) -> Execution:
        """Every round, then the refinements; stops at an interruption."""
        failed: set[tuple[str, str]] = set()
        rounds, done = list(self.strategy.rounds), Execution()
        refinements = self.strategy.refinements
        while rounds:
            params = rounds.pop(0)
            cases = [c for c in self.plan_round(params, first=not done.order)
                     if (c.runtime, c.model) not in failed]
            suite.prepare(cases, with_noop(self.workloads))
            execution = execute(cases, self.runner, self.sink, self.progress)
            done.done += execution.done
            done.order += execution.order
            if execution.interrupted:
                done.interrupted, done.interruption = True, execution.interruption
                break
            if self.strategy.stop_after_failure:
                failed |= {(r.case.runtime, r.case.model) for r in execution.done if r.status != "ok"}
            if not rounds and refinements > 0:
                refinements -= 1
                rounds = self.strategy.refine(suite.load_analyzed(self.store, self.record.id))
        return done


def _by(results: list[CaseResult], *fields) -> dict[tuple, list[CaseResult]]:
    groups: dict[tuple, list[CaseResult]] = {}
    for r in results:
        if r.case.workload == "noop":
            continue
        key = tuple(getattr(r.case, f) if f != "params" else
                    tuple(sorted((k, v) for k, v in r.case.params.items())) for f in fields)
        groups.setdefault(key, []).append(r)
    return groups


def analyze_workers(record: RunRecord, cores: int) -> list[tuple[str, str, dict]]:
    out = []
    for (workload, runtime, model, params), members in _by(record.results, "workload", "runtime", "model", "params").items():
        measured = [m for m in members if m.stats is not None and m.case.workers]
        if len(measured) < 2:
            continue
        seq = next((r for r in record.results if r.case.runtime == runtime and r.case.workload == workload
                    and r.case.family == "seq" and r.stats is not None
                    and r.case.params == members[0].case.params), None)
        workers = [m.case.workers for m in measured]
        medians = [m.stats.median_ns for m in measured]
        own = scaling.fit_scaling(workers, medians, cores) if 1 in workers else None
        fitted = own or scaling.fit_scaling(workers, medians, cores, baseline_ns=seq.stats.median_ns if seq else None)
        result = fitted.as_dict()
        result.update(runtime=runtime, model=model, workload=workload, params=dict(params),
                      speedup_vs_seq=[seq.stats.median_ns / m for m in medians] if seq else None,
                      baseline="the model at 1 worker" if own else "the runtime's seq", cores=cores)
        out.append(("scaling", f"{workload}/{runtime}/{model}", result))
    return out


def analyze_sizes(record: RunRecord, param: str) -> list[tuple[str, str, dict]]:
    out = []
    rest = lambda r: tuple(sorted((k, v) for k, v in r.case.params.items() if k != param))
    for (workload, runtime), members in _by(record.results, "workload", "runtime").items():
        for other in dict.fromkeys(rest(m) for m in members):
            group = [m for m in members if rest(m) == other and m.stats is not None]
            seqs = {m.case.params[param]: m for m in group if m.case.family == "seq"}
            for model in dict.fromkeys(m.case.model for m in group if m.case.family != "seq"):
                pars = {m.case.params[param]: m for m in group if m.case.model == model}
                sizes = sorted(set(seqs) & set(pars))
                if len(sizes) < 2:
                    continue
                found = crossover.find_crossover(
                    sizes, [grouped_samples(seqs[s].run) for s in sizes],
                    [grouped_samples(pars[s].run) for s in sizes])
                result = found.as_dict()
                result.update(runtime=runtime, model=model, workload=workload, param=param,
                              params=dict(other), seq_median_ns=[seqs[s].stats.median_ns for s in sizes],
                              parallel_median_ns=[pars[s].stats.median_ns for s in sizes])
                out.append(("crossover", f"{workload}/{runtime}/{model} {dict(other)}", result))
    return out


def analyze_tasks(record: RunRecord, param: str) -> list[tuple[str, str, dict]]:
    out = []
    rest = lambda r: tuple(sorted((k, v) for k, v in r.case.params.items() if k != param))
    for (workload, runtime, model), members in _by(record.results, "workload", "runtime", "model").items():
        for other in dict.fromkeys(rest(m) for m in members):
            group = sorted((m for m in members if rest(m) == other), key=lambda m: m.case.params[param])
            ok = [m for m in group if m.stats is not None]
            failed = [m for m in group if m.run.status != "ok"]
            failure = None
            if failed:
                first = failed[0]
                failure = {"n": first.case.params[param], "outcome": first.run.status, "detail": first.run.reason}
            costs = per_task.per_task_costs(
                [m.case.params[param] for m in ok], [m.stats.median_ns for m in ok],
                [1024.0 * (m.stats.peak_rss_kb or 0) for m in ok], failure)
            result = costs.as_dict()
            result.update(runtime=runtime, model=model, workload=workload, param=param, params=dict(other))
            out.append(("per-task", f"{workload}/{runtime}/{model}", result))
    return out


def analyze_run(record: RunRecord) -> list[tuple[str, str, dict]]:
    """Analyses that any run supports: batch-job's Amdahl table and the start-up split."""
    from parbench.analysis.startup import time_splits
    cores = record.machine.get("logical_cpus") or os.cpu_count() or 1
    out = [("batch-amdahl", b.runtime, b.as_dict()) for b in batch_amdahl.batch_amdahl(record.results, cores)]
    warmup = record.options.get("warmup")
    repeat = record.options.get("repeat")
    from parbench.plan import SCALE_DEFAULTS
    defaults = SCALE_DEFAULTS.get(record.scale, SCALE_DEFAULTS["quick"])
    splits = time_splits(record.results, warmup if warmup is not None else defaults["warmup"],
                         repeat if repeat is not None else defaults["repeat"])
    if splits:
        out.append(("time-split", "all", {"rows": [s.as_dict() for s in splits]}))
    return out


def reanalyze(record: RunRecord) -> list[tuple[str, str, dict]]:
    """A sweep's fits derived afresh from its stored samples (the bootstrap's seed is fixed, so
    the same samples give the same answer), so a fix to an analysis reaches old runs too."""
    kind = record.options.get("sweep")
    workloads = {r.case.workload for r in record.results if r.case.workload != "noop"}
    if kind == "workers":
        return analyze_workers(record, record.machine.get("logical_cpus") or os.cpu_count() or 1)
    if kind in ("size", "tasks") and len(workloads) == 1:
        param = load_all()[workloads.pop()].swept_param
        return analyze_sizes(record, param) if kind == "size" else analyze_tasks(record, param)
    return []
