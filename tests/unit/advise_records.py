"""Stored runs of known samples for the advise tests: what the store would load, no runtime needed."""
from __future__ import annotations

import os
import socket

from parbench.records import Case, CaseResult, CaseRun, ProcessMeasurement, Repetition, RunRecord


def run_of(workload: str, param: str, cases: list[tuple[str, int, int | None, int]], run_id: int = 1,
           hostname: str | None = None, extra_params: dict | None = None, logical_cpus: int | None = None,
           first_times: float | None = None) -> RunRecord:
    """One run of `cases` (model, value, workers or None for seq, ns): five repetitions each,
    `ns` + 0 … 4 ns, in one process; with `first_times`, the process's first repetition took that
    many times `ns` (stored as the runner stores it, with the first timed repetition)."""
    record = RunRecord(run_id, "2026-01-01T00:00:00+00:00", "smoke", {},
                       {"hostname": hostname or socket.gethostname(), "logical_cpus": logical_cpus or os.cpu_count()}, {})
    for model, value, workers, ns in cases:
        case = Case(workload, "rt", model, "seq" if workers is None else "threads",
                    {param: value, **(extra_params or {})}, workers)
        run = CaseRun(case, "1")
        run.processes.append(ProcessMeasurement(0, 10 * ns, ns, 0, 1024, 0, 0, 0, "ok"))
        run.repetitions += [Repetition(0, rep, ns + rep, value, "1", True) for rep in range(5)]
        if first_times is not None:
            run.repetitions[0].extra = {"steady_class": "warm-up", "first_ns": ns * first_times, "warmup_reps": 3}
        record.results.append(CaseResult(run))
    return record
