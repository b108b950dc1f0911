"""The analyses a run's stored samples support, derived afresh whenever a run is shown: the
scaling fits of a worker sweep, the crossover of a size sweep, the per-task slopes of a task
sweep, and for any run the Amdahl table of CPU and I/O shares and the start-up split."""
from __future__ import annotations

import os
from dataclasses import replace
from typing import Callable

from parbench.analysis import amdahl_shares, crossover, per_task, scaling
from parbench.analysis.results import TimeSplits
from parbench.analysis.startup import time_splits
from parbench.analysis.stats import grouped_samples
from parbench.records import Analysis, CaseResult, RunRecord


def _by(results: list[CaseResult], *fields) -> dict[tuple, list[CaseResult]]:
    groups: dict[tuple, list[CaseResult]] = {}
    for r in results:
        if r.case.workload == "noop":
            continue
        key = tuple(getattr(r.case, f) if f != "params" else
                    tuple(sorted((k, v) for k, v in r.case.params.items())) for f in fields)
        groups.setdefault(key, []).append(r)
    return groups


def analyze_workers(record: RunRecord, cores: int) -> list[Analysis]:
    out = []
    for (workload, runtime, model, params), members in _by(record.results, "workload", "runtime", "model", "params").items():
        measured = [m for m in members if m.stats is not None and m.case.workers]
        if len(measured) < 2:
            continue
        without_start = {k: v for k, v in members[0].case.params.items() if k != "start"}
        seq = next((r for r in record.results if r.case.runtime == runtime and r.case.workload == workload
                    and r.case.family == "seq" and r.stats is not None
                    and r.case.params == without_start), None)
        workers = [m.case.workers for m in measured]
        medians = [m.stats.median_ns for m in measured]
        own = scaling.fit_scaling(workers, medians, cores) if 1 in workers else None
        fitted = own or scaling.fit_scaling(workers, medians, cores, baseline_ns=seq.stats.median_ns if seq else None)
        result = replace(fitted, runtime=runtime, model=model, workload=workload, params=dict(params),
                         speedup_vs_seq=[seq.stats.median_ns / m for m in medians] if seq else None,
                         baseline="the model at 1 worker" if own else "the runtime's seq", cores=cores)
        start = dict(params).get("start")
        out.append(Analysis("scaling", f"{workload}/{runtime}/{model}" + (f" {start}" if start else ""), result))
    return out


def analyze_sizes(record: RunRecord, param: str) -> list[Analysis]:
    """One crossover per parallel model and start mode against its runtime's seq at the same
    params (the start mode is the parallel model's own: seq takes none), then the modes side by
    side."""
    out, found_all = [], []
    rest = lambda r: tuple(sorted((k, v) for k, v in r.case.params.items() if k not in (param, "start")))
    for (workload, runtime), members in _by(record.results, "workload", "runtime").items():
        for other in dict.fromkeys(rest(m) for m in members):
            group = [m for m in members if rest(m) == other and m.stats is not None]
            seqs = {m.case.params[param]: m for m in group if m.case.family == "seq"}
            for model, start in dict.fromkeys((m.case.model, m.case.params.get("start", ""))
                                              for m in group if m.case.family != "seq"):
                pars = {m.case.params[param]: m for m in group
                        if m.case.model == model and m.case.params.get("start", "") == start}
                sizes = sorted(set(seqs) & set(pars))
                if len(sizes) < 2:
                    continue
                found = crossover.find_crossover(
                    sizes, [grouped_samples(seqs[s].run) for s in sizes],
                    [grouped_samples(pars[s].run) for s in sizes])
                result = replace(found, runtime=runtime, model=model, workload=workload, param=param,
                                 params=dict(other), seq_median_ns=[seqs[s].stats.median_ns for s in sizes],
                                 parallel_median_ns=[pars[s].stats.median_ns for s in sizes], start=start)
                found_all.append(result)
                fixed = " ".join(f"{k}={v}" for k, v in other)
                out.append(Analysis("crossover", f"{workload}/{runtime}/{model}{' ' + start if start else ''}"
                                                 f"{' · ' + fixed if fixed else ''}", result))
    for table in crossover.by_mode(found_all):
        if any(len(row.crossover) > 1 for row in table.rows):
            fixed = " ".join(f"{k}={v}" for k, v in table.params.items())
            out.append(Analysis("crossover-modes", f"{table.workload}{' · ' + fixed if fixed else ''}", table))
    return out


def analyze_tasks(record: RunRecord, param: str) -> list[Analysis]:
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
            result = replace(costs, runtime=runtime, model=model, workload=workload, param=param, params=dict(other),
                             family=group[0].case.family)
            out.append(Analysis("per-task", f"{workload}/{runtime}/{model}", result))
    return out


def analyze_run(record: RunRecord) -> list[Analysis]:
    """Analyses that any run supports: Amdahl from CPU and I/O shares and the start-up split."""
    cores = record.machine.get("logical_cpus") or os.cpu_count() or 1
    out = [Analysis("amdahl-shares", f"{a.workload}/{a.runtime}", a)
           for a in amdahl_shares.amdahl_shares(record.results, cores)]
    splits = time_splits(record.results)
    if splits:
        out.append(Analysis("time-split", "all", TimeSplits(splits)))
    return out


def reanalyze(record: RunRecord, swept_param: Callable[[str], str]) -> list[Analysis]:
    """A sweep's fits derived afresh from its stored samples (the bootstrap's seed is fixed, so
    the same samples give the same answer), so a fix to an analysis reaches old runs too.
    `swept_param(workload)` names the parameter a size or task sweep of that workload varies."""
    kind = record.options.get("sweep")
    workloads = {r.case.workload for r in record.results if r.case.workload != "noop"}
    if kind == "workers":
        return analyze_workers(record, record.machine.get("logical_cpus") or os.cpu_count() or 1)
    if kind in ("size", "tasks") and len(workloads) == 1:
        param = swept_param(workloads.pop())
        return analyze_sizes(record, param) if kind == "size" else analyze_tasks(record, param)
    return []
