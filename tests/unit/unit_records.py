"""Plain records for the unit tier: cases, measured processes and analyzed runs built in memory,
so a module's test needs no runtime, no subprocess and no store."""
from __future__ import annotations

from parbench.analysis.case_results import analyze
from parbench.records import Case, CaseRun, ProcessMeasurement, Repetition, RunRecord

CORES = 2


def process(index: int, wall_ns: int, outcome: str = "ok", rss_kb: int = 5000) -> ProcessMeasurement:
    return ProcessMeasurement(index, wall_ns, wall_ns // 2, wall_ns // 10, rss_kb, 1, 1,
                              0 if outcome == "ok" else 1, outcome, tree_peak_rss_kb=rss_kb + 1000,
                              sequence=index)


def case_run(model: str = "seq", family: str = "seq", times: tuple[tuple[int, ...], ...] = ((100, 110, 105),
             (102, 108, 104)), params: dict | None = None, workers: int | None = None, runtime: str = "rt",
             workload: str = "toy", items: int = 10, rss_kb: int = 5000) -> CaseRun:
    """A case whose processes each ran the timed repetitions `times[i]` (ns), all verified."""
    case = Case(workload, runtime, model, family, {"n": 10} if params is None else params, workers)
    run = CaseRun(case, "42")
    for index, reps in enumerate(times):
        run.processes.append(process(index, 2 * sum(reps) + 1000, rss_kb=rss_kb))
        run.repetitions += [Repetition(index, rep, ns, items, "42", True) for rep, ns in enumerate(reps)]
    return run


def failed_run(model: str = "broken", outcome: str = "crash", params: dict | None = None, family: str = "threads",
               workers: int | None = 2) -> CaseRun:
    run = CaseRun(Case("toy", "rt", model, family, {"n": 10} if params is None else params, workers), "42")
    run.processes.append(process(0, 1000, outcome))
    run.fail(outcome, "exit 1: it fell over")
    return run


def record(runs: list[CaseRun], kind: str = "suite", run_id: int = 1) -> RunRecord:
    """A complete run of these cases with statistics and comparisons, as the store gives it back."""
    out = RunRecord(run_id, "2026-11-25T08:00:00+00:00", "smoke", {"warmup": 0, "repeat": 3},
                    {"hostname": "unit", "logical_cpus": CORES}, {"rt": {"version": "1", "flags": "", "sources": {}}},
                    status="complete", finished_at="2026-11-25T08:01:00+00:00", kind=kind)
    out.results = analyze(runs, CORES)
    return out


def two_models() -> RunRecord:
    """seq and a two-worker model of one table, the parallel one about twice as fast, and a crash."""
    return record([case_run(), case_run("pool", "threads", ((50, 55, 52), (51, 54, 53)), workers=2),
                   failed_run()])
