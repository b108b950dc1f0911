"""Amdahl's prediction from measured CPU and I/O shares, beside what each model got, for every
workload whose `seq` reports both (`extra.cpu_ns`, `extra.io_ns`), the database job of seed 002 first among them.

Seed 002 reasoned that only the CPU part parallelises while the I/O part stays serial: S(W) = 1 / (io_share + cpu_share / W), with W the workers the CPU part can
really use (at most the logical CPUs). `seq`'s own cpu_ns and io_ns give the shares.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from parbench.records import CaseResult


@dataclass
class AmdahlRow:
    case: str
    workers: int
    predicted_speedup: float
    achieved_speedup: float | None
    efficiency_vs_prediction: float | None


@dataclass
class AmdahlShares:
    workload: str
    runtime: str
    cpu_share: float
    io_share: float
    rows: list[AmdahlRow]

    def as_dict(self) -> dict:
        return asdict(self)


def predicted_speedup(cpu_share: float, io_share: float, workers: int) -> float:
    return 1.0 / (io_share + cpu_share / max(1, workers))


def _median_extra(result: CaseResult, key: str) -> float | None:
    values = [r.extra[key] for r in result.run.repetitions if r.verified and key in r.extra]
    return float(np.median(values)) if values else None


def amdahl_shares(results: list[CaseResult], cores: int) -> list[AmdahlShares]:
    out = []
    measured = [r for r in results if r.stats is not None]
    for workload, runtime in dict.fromkeys((r.case.workload, r.case.runtime) for r in measured):
        mine = [r for r in measured if (r.case.workload, r.case.runtime) == (workload, runtime)]
        seq = next((r for r in mine if r.case.family == "seq"), None)
        if seq is None:
            continue
        cpu, io = _median_extra(seq, "cpu_ns"), _median_extra(seq, "io_ns")
        if not cpu or io is None:
            continue
        cpu_share, io_share = cpu / (cpu + io), io / (cpu + io)
        rows = []
        for r in mine:
            workers = r.case.workers or int(_median_extra(r, "workers") or cores)
            usable = 1 if r.case.family == "seq" else min(workers, cores)
            predicted = predicted_speedup(cpu_share, io_share, usable)
            achieved = seq.stats.median_ns / r.stats.median_ns
            rows.append(AmdahlRow(r.case.label, usable, predicted, achieved, achieved / predicted))
        out.append(AmdahlShares(workload, runtime, cpu_share, io_share, rows))
    return out
