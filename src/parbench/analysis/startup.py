"""Where a process's time goes: wall = start-up + input loading + work + the rest, each measured
in the process itself.

start-up is the time before its first line's work began: when the launcher saw that line
arrive, less what the line accounts for (its work, phases and baselines) and the input loading
it reports (`startup_ns`, stored by run.judge on the first timed repetition); work is every
repetition's `ns`, warm-ups included (`warmup_ns`); the rest is what none of those explain
(JIT, pool start, teardown, GC at exit, the pipe). Each is the median over the case's processes.

An earlier split took the runtime's `noop` process as every process's boot and assumed the
warm-ups as long as the median: two other processes' figures subtracted from this one's wall,
which left a negative rest wherever the noop ran slower (a cold cache, a busy minute) than the
boot inside a case that did work. Measured in the same process, every part is within its wall.
Runs stored before the launcher stamped lines have no start-up to split by: their rows say so.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from parbench.records import CaseResult, Repetition


@dataclass
class TimeSplit:
    case: str
    process_wall_ns: float
    boot_ns: float | None          # start-up before the first line's work (None: not stamped)
    load_ns: float | None
    work_ns: float
    rest_ns: float | None

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class _ProcessSplit:
    wall_ns: float
    boot_ns: float | None
    load_ns: float | None
    work_ns: float

    @property
    def rest_ns(self) -> float | None:
        return None if self.boot_ns is None else self.wall_ns - self.boot_ns - (self.load_ns or 0) - self.work_ns


def _number(extra: dict, key: str) -> float | None:
    value = extra.get(key)
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _process_split(wall_ns: int, reps: list[Repetition]) -> _ProcessSplit:
    first = min(reps, key=lambda r: r.rep).extra
    work = sum(r.ns for r in reps) + (_number(first, "warmup_ns") or 0)
    return _ProcessSplit(wall_ns, _number(first, "startup_ns"), _number(first, "load_ns"), work)


def _median(values: list[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return float(np.median(known)) if known else None


def time_splits(results: list[CaseResult]) -> list[TimeSplit]:
    splits = []
    for r in results:
        if r.case.workload == "noop" or r.stats is None:
            continue
        walls = {p.index: p.wall_ns for p in r.run.processes if p.outcome == "ok" and p.index >= 0}
        by_process: dict[int, list[Repetition]] = {}
        for rep in r.run.repetitions:
            if rep.process in walls:
                by_process.setdefault(rep.process, []).append(rep)
        if not by_process:
            continue
        parts = [_process_split(walls[index], reps) for index, reps in by_process.items()]
        splits.append(TimeSplit(r.case.key, _median([p.wall_ns for p in parts]), _median([p.boot_ns for p in parts]),
                                _median([p.load_ns for p in parts]), _median([p.work_ns for p in parts]),
                                _median([p.rest_ns for p in parts])))
    return splits
