"""The analyses of a user's own command lines swept over one parameter (`parbench exec --fit`),
with the same laws the workloads' sweeps get: speedup and the Amdahl and USL fits over workers,
the crossover between the first command and each other over size, the time and memory per
unit over a count. Which command line each case ran is the run's own record (options["fit"])."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, replace

from parbench.analysis import crossover, per_task, scaling
from parbench.analysis.stats import grouped_samples
from parbench.records import Analysis, CaseResult, RunRecord

AXES = ("workers", "size", "count")
# What each axis counts, and up to where: `sweep`'s own bounds (--workers, --counts, --from/--to).
# Every axis counts something (workers, bytes or items, units), so its values are whole numbers.
AXIS_BOUNDS = {"workers": 4096, "size": 10 ** 15, "count": 10 ** 9}
AXIS_UNITS = {"workers": "worker count", "size": "size", "count": "unit count"}
# Written as a person writes a whole number: float() would also take "nan", "1e400", "1_0", "١".
WHOLE = re.compile(r"\+?[0-9]+(\.0*)?")


def number(text) -> float | None:
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def axis_value(axis: str, text) -> int | None:
    """A swept value as the axis counts it: a whole number from 1 to the axis's bound, else None."""
    if not isinstance(text, str) or not WHOLE.fullmatch(text.strip()):
        return None
    value = int(float(text)) if "." in text else int(text)
    return value if 1 <= value <= AXIS_BOUNDS[axis] else None


def axis_problem(axis: str, param: str, values) -> str | None:
    """Why these values cannot be the axis (one line naming the first that cannot), or None."""
    wrong = next((v for v in values if axis_value(axis, v) is None), None)
    if wrong is None:
        return None
    return (f"--fit {axis}: {{{param}}} = {ascii(wrong)[1:-1] if isinstance(wrong, str) else wrong!r} is not a "
            f"{AXIS_UNITS[axis]}: every value of a {axis} axis is a whole number from 1 to {AXIS_BOUNDS[axis]:,}")


@dataclass
class Unfitted:
    """A stored run whose swept values the axis cannot take (stored before they were checked):
    the reason, said in place of its fits."""
    reason: str
    workload: str = "exec"


def _filled(template: str, params: dict) -> str:
    for name, value in params.items():
        template = template.replace(f"{{{name}}}", str(value))
    return template


def template_index(case, templates: list[str], template_of: dict) -> int:
    """Which command line a case ran: as the run recorded it before its first round, else (a
    size sweep's refinement rounds, planned after the record was stored) the command line that
    its parameters make into the command the case ran."""
    if case.key in template_of:
        return template_of[case.key]
    ran = case.note or case.model
    return next((i for i, t in enumerate(templates)
                 if ran == _filled(t, case.params) or ran.startswith(_filled(t, case.params) + " (")), -1)


def _groups(record: RunRecord, fit: dict) -> dict[tuple[int, tuple], list[CaseResult]]:
    """The cases of each command line at each value of the other parameters, ordered by the swept value."""
    param, template_of = fit["param"], fit["template_of"]
    groups: dict[tuple[int, tuple], list[CaseResult]] = {}
    for r in record.results:
        index = template_index(r.case, fit["commands"], template_of)
        if index < 0 or number(r.case.params.get(param)) is None:
            continue                           # the reference, or a value that is no number
        other = tuple(sorted((k, v) for k, v in r.case.params.items() if k != param))
        groups.setdefault((index, other), []).append(r)
    for members in groups.values():
        members.sort(key=lambda m: number(m.case.params[param]))
    return groups


def _subject(template: str, other: tuple) -> str:
    fixed = " ".join(f"{k}={v}" for k, v in other)
    return template + (f" · {fixed}" if fixed else "")


def analyze_commands(record: RunRecord) -> list[Analysis]:
    """The fit `exec --fit AXIS` asked for, derived afresh from the stored samples."""
    fit = record.options.get("fit")
    if not fit:
        return []
    problem = axis_problem(fit["axis"], fit["param"], [r.case.params[fit["param"]] for r in record.results
                                                        if fit["param"] in r.case.params])
    if problem:
        return [Analysis("unfitted", f"run {record.id}", Unfitted(f"{problem} (stored before such values were refused)"))]
    groups, templates = _groups(record, fit), fit["commands"]
    if fit["axis"] == "workers":
        cores = record.machine.get("logical_cpus") or os.cpu_count() or 1
        return [a for (index, other), members in groups.items()
                if (a := _scaling(templates[index], other, members, fit["param"], cores))]
    if fit["axis"] == "size":
        return [a for (index, other), members in groups.items() if index > 0
                if (a := _crossover(templates, index, other, members, groups.get((0, other), []), fit["param"]))]
    return [_per_unit(templates[index], other, members, fit["param"]) for (index, other), members in groups.items()]


def _scaling(template: str, other: tuple, members: list[CaseResult], param: str, cores: int) -> Analysis | None:
    measured = [m for m in members if m.stats is not None]
    workers = [int(number(m.case.params[param])) for m in measured]
    if len(measured) < 2 or 1 not in workers:
        return None
    fitted = scaling.fit_scaling(workers, [m.stats.median_ns for m in measured], cores)
    result = scaling.with_run_intervals(fitted, [grouped_samples(m.run) for m in measured])
    sitting = sitting_quality(workers, measured)
    result = replace(result, workload="exec", runtime="exec", model=template, params=dict(other),
                     baseline=f"the command at {param}=1", cores=cores, sitting=sitting,
                     no_parallelism=no_parallelism(workers, sitting["cores_got"], cores))
    return Analysis("scaling", _subject(template, other), result)


def _median(values: list[float]) -> float | None:
    ordered = sorted(values)
    if not ordered:
        return None
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def sitting_quality(workers: list[int], measured: list[CaseResult]) -> dict:
    """What the sitting gave the command at each worker count, the medians of its runs: the
    cores it ran on (its tree's CPU over its wall, both as timed), the cores everything else on
    the machine kept busy beside it, and the share of its wall the hypervisor stole."""
    got, others, steal = [], [], []
    for result in measured:
        reps = [r for r in result.run.repetitions if r.verified and r.ns > 0]
        cpu = [(r.extra.get("user_ns", 0) + r.extra.get("sys_ns", 0)) / r.ns for r in reps if "user_ns" in r.extra]
        got.append(_median(cpu))
        others.append(_median([float(r.extra["others_cores"]) for r in reps if "others_cores" in r.extra]))
        steal.append(_median([max(0, r.extra["steal_ns"]) / r.ns for r in reps if "steal_ns" in r.extra]))
    return {"workers": workers, "cores_got": got, "others_cores": others, "steal_share": steal}


# Parallelism shows as a command running on more than one core at once: its CPU over its wall
# above 1. At most this much above 1 at every worker count the CPUs can hold, no count showed it.
PARALLEL_GAIN = 0.1
# Below this many cores at one worker the command mostly waits (I/O, sleep): its CPU says
# nothing of whether it had the cores, so no refusal is read from it.
CPU_BOUND_CORES = 0.05


def no_parallelism(workers: list[int], cores_got: list[float | None], cpus: int) -> str:
    """Why the sitting could not show parallelism, or "": at no worker count above 1 (that the
    machine's CPUs can hold) did the command run on more than one core's worth. Whether a
    pinned CPU (`taskset -c 0`), another process holding the second core, or the command itself
    kept it there, no serial fraction can be read from this sitting: the one fitted would be the
    machine's, not the program's."""
    at = dict(zip(workers, cores_got))
    one = at.get(1)
    wider = [(w, c) for w, c in at.items() if 1 < w <= cpus and c is not None]
    if one is None or one < CPU_BOUND_CORES or not wider:
        return ""
    most, cores = max(wider, key=lambda pair: pair[1])
    if cores > 1 + PARALLEL_GAIN:
        return ""
    return (f"with more workers the command ran on at most {cores:.2f} cores ({_workers(most)}; its CPU over its "
            f"wall, {one:.2f} at 1 worker): it was given no second core, or used none")


def _workers(count: int) -> str:
    return f"{count} worker{'s' if count != 1 else ''}"


def _crossover(templates: list[str], index: int, other: tuple, members: list[CaseResult],
               baseline: list[CaseResult], param: str) -> Analysis | None:
    """The first command line is the baseline (seq's place in a workload's size sweep)."""
    ours = {number(m.case.params[param]): m for m in members if m.stats is not None}
    theirs = {number(m.case.params[param]): m for m in baseline if m.stats is not None}
    sizes = sorted(set(ours) & set(theirs))
    if len(sizes) < 2:
        return None
    found = crossover.find_crossover(sizes, [grouped_samples(theirs[s].run) for s in sizes],
                                     [grouped_samples(ours[s].run) for s in sizes])
    # The verdict's words are a workload's (parallel against seq): here, this command against the first.
    result = replace(found, workload="exec", runtime="exec", model=templates[index], param=param,
                     verdict=found.verdict.replace("parallel", "this command"),
                     params=dict(other), against=templates[0],
                     seq_median_ns=[theirs[s].stats.median_ns for s in sizes],
                     parallel_median_ns=[ours[s].stats.median_ns for s in sizes])
    return Analysis("crossover", _subject(f"{templates[index]} against {templates[0]}", other), result)


def _per_unit(template: str, other: tuple, members: list[CaseResult], param: str) -> Analysis:
    ok = [m for m in members if m.stats is not None]
    failed = [m for m in members if m.run.status != "ok"]
    failure = ({"n": int(number(failed[0].case.params[param])), "outcome": failed[0].run.status,
                "detail": failed[0].run.reason} if failed else None)
    costs = per_task.per_task_costs([int(number(m.case.params[param])) for m in ok], [m.stats.median_ns for m in ok],
                                    [1024.0 * (m.stats.peak_rss_kb or 0) for m in ok], failure)
    result = replace(costs, workload="exec", runtime="exec", model=template, param=param, params=dict(other),
                     family="")      # no model's promise of one unit per task to hold it to (report's ⚠)
    return Analysis("per-task", _subject(template, other), result)
