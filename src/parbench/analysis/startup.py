"""Where a process's time goes: wall = boot + input loading + timed work + the rest.

boot is the runtime's `noop` process (its start-up and the harness's overhead), load is the
implementation's own `load_ns`, work is the timed repetitions (warm-ups assumed as long as
the median); the rest is what none of those explain (JIT, pool start, teardown, GC at exit).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from parbench.records import CaseResult


@dataclass
class TimeSplit:
    case: str
    process_wall_ns: float
    boot_ns: float | None
    load_ns: float | None
    work_ns: float
    rest_ns: float | None

    def as_dict(self) -> dict:
        return asdict(self)


def time_splits(results: list[CaseResult], warmup: int, repeat: int) -> list[TimeSplit]:
    boots = {r.case.runtime: r.stats.process_wall_median_ns for r in results
             if r.case.workload == "noop" and r.stats is not None}
    splits = []
    for r in results:
        if r.case.workload == "noop" or r.stats is None or not r.stats.process_wall_median_ns:
            continue
        reps_per_process = len(r.run.repetitions) / max(1, len(r.run.processes))
        warm = warmup if reps_per_process >= repeat else 0
        work = r.stats.median_ns * (reps_per_process + warm)
        loads = [x.extra["load_ns"] for x in r.run.repetitions if "load_ns" in x.extra]
        load = float(np.median(loads)) if loads else None
        boot = boots.get(r.case.runtime)
        rest = (r.stats.process_wall_median_ns - boot - (load or 0) - work) if boot is not None else None
        splits.append(TimeSplit(r.case.key, r.stats.process_wall_median_ns, boot, load, work, rest))
    return splits
