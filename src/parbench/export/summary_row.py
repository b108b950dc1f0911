"""A measured case's summary as hyperfine reports a command (seconds, CPU per run, bytes), computed
once: the JSON export builds its fields from it and the CSV reads its attributes, as hyperfine's
export/ reads BenchmarkResult."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from parbench.export.views import ShellCpu, view
from parbench.records import CaseResult, ProcessMeasurement, Repetition

S = 1e-9        # ns → s


@dataclass(frozen=True)
class Summary:
    """One measured case (its stats are set), in hyperfine's units."""
    command: str                        # exec: the command as given; otherwise the case's label
    mean: float
    stddev: float | None                # None from a single run, as hyperfine
    median: float
    user: float                         # CPU per counted run
    system: float
    min: float
    max: float
    times: tuple[float, ...]            # every verified repetition
    memory_usage_byte: tuple[int, ...]  # its process tree's peak, one per verified repetition
    median_ci: tuple[float, float]
    tree_peak_rss_bytes: int
    largest_process_rss_bytes: int
    verified: int                       # repetitions whose checksum matched
    repetitions: int                    # all repetitions, failed ones included


def _per_repetition(cpu_ns: list[int], repetitions: int) -> float:
    return float(np.sum(cpu_ns)) / repetitions * S if cpu_ns and repetitions else 0.0


def cpu_per_run(ok: list[ProcessMeasurement], verified: list[Repetition]) -> tuple[float, float]:
    """User and system CPU per run, as hyperfine: exec's runs carry theirs with the shell's
    start-up subtracted; a runtime's process shares its CPU over the repetitions it ran."""
    shell = [view(ShellCpu, r.extra) for r in verified]
    if shell and all(c.user_ns is not None for c in shell):
        return (_per_repetition([c.user_ns for c in shell], len(verified)),
                _per_repetition([c.sys_ns for c in shell], len(verified)))
    return (_per_repetition([p.user_ns for p in ok], len(verified)),
            _per_repetition([p.sys_ns for p in ok], len(verified)))


def tree_peaks(ok: list[ProcessMeasurement], verified: list[Repetition]) -> list[int]:
    """hyperfine's memory_usage_byte, one per counted run: its process tree's peak, in bytes."""
    peak = {p.index: max(p.tree_peak_rss_kb or 0, p.max_rss_kb) * 1024 for p in ok}
    return [peak.get(r.process, 0) for r in verified]


def summary(result: CaseResult) -> Summary:
    case, run, s = result.case, result.run, result.stats
    verified = [r for r in run.repetitions if r.verified]
    ok = [p for p in run.processes if p.index >= 0 and p.outcome == "ok"]
    user, system = cpu_per_run(ok, verified)
    low, high = s.median_ci_ns
    return Summary(
        command=case.model if case.workload == "exec" else case.label,
        mean=s.mean_ns * S, stddev=s.stdev_ns * S if s.n > 1 else None, median=s.median_ns * S,
        user=user, system=system, min=s.min_ns * S, max=s.max_ns * S,
        times=tuple(r.ns * S for r in verified), memory_usage_byte=tuple(tree_peaks(ok, verified)),
        median_ci=(low * S, high * S),
        tree_peak_rss_bytes=(s.peak_rss_kb or 0) * 1024,
        largest_process_rss_bytes=(s.largest_process_rss_kb or 0) * 1024,
        verified=len(verified), repetitions=len(run.repetitions))
