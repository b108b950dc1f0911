"""Stage 3a: the statistics of one case, from its verified repetitions only.

The bootstrap is two-level (resample processes, then repetitions within each), because
pyperf's lesson is that fresh processes differ more than repetitions inside one process;
resampling repetitions alone would make the confidence interval look tighter than it is.
"""
from __future__ import annotations

import os

import numpy as np

from parbench.analysis.steady_state import case_class

from parbench.records import CaseRun, CaseStats

BOOTSTRAP_RESAMPLES = 2000
CONFIDENCE = 0.95
# Below this many runs a bootstrap interval of the median is little more than the range of the
# runs and covers the true median far less often than 95 % (2 runs: 50 %, 5 runs: 94 % at best):
# exec's console and tables name the interval "range" there, never "95% CI".
MIN_RUNS_FOR_CI = 10


def _rng() -> np.random.Generator:
    return np.random.default_rng(20240924)   # fixed: the same data always gives the same CI


def grouped_samples(run: CaseRun) -> list[np.ndarray]:
    """Verified repetition times grouped by process. A `noop` case times no work, so its
    samples are its whole processes' wall times: its start-up is what it measures."""
    if run.case.workload == "noop":
        return [np.asarray([p.wall_ns], dtype=float) for p in run.processes if p.outcome == "ok"]
    groups: dict[int, list[int]] = {}
    for rep in run.repetitions:
        if rep.verified:
            groups.setdefault(rep.process, []).append(rep.ns)
    return [np.asarray(g, dtype=float) for g in groups.values()]


def bootstrap_medians(groups: list[np.ndarray], resamples: int = BOOTSTRAP_RESAMPLES,
                      rng: np.random.Generator | None = None) -> np.ndarray:
    """Medians of `resamples` two-level bootstrap resamples of the grouped samples: pick as many
    groups as there are, with replacement; within each picked group, draw as many samples as
    it has, with replacement; take the median of all drawn. Vectorised in blocks (a Python
    loop per resample made the statistics a third of a quick run's time)."""
    rng = rng or _rng()
    sizes = np.array([len(g) for g in groups])
    width = int(sizes.max())
    table = np.full((len(groups), width), np.nan)
    for i, g in enumerate(groups):
        table[i, :len(g)] = g
    block = max(1, 4_000_000 // (len(groups) * width))       # bounds memory whatever the sizes
    medians = np.empty(resamples)
    for start in range(0, resamples, block):
        count = min(block, resamples - start)
        picked = rng.integers(0, len(groups), (count, len(groups)))
        picked_sizes = sizes[picked][..., None]                                   # (count, groups, 1)
        within = (rng.random((count, len(groups), width)) * picked_sizes).astype(np.intp)
        drawn = table[picked[..., None], within]
        drawn[np.arange(width)[None, None, :] >= picked_sizes] = np.nan            # a group's own size only
        medians[start:start + count] = np.nanmedian(drawn.reshape(count, -1), axis=1)
    return medians


def confidence_interval(values: np.ndarray) -> tuple[float, float]:
    tail = (1 - CONFIDENCE) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


def tukey_outliers(samples: np.ndarray) -> tuple[int, int]:
    """How many samples lie below Q1 - 1.5 IQR and above Q3 + 1.5 IQR (flagged, never dropped)."""
    if len(samples) < 4:
        return 0, 0
    q1, q3 = np.percentile(samples, [25, 75])
    fence = 1.5 * (q3 - q1)
    return int((samples < q1 - fence).sum()), int((samples > q3 + fence).sum())


def case_stats(run: CaseRun, cores: int | None = None) -> CaseStats | None:
    groups = grouped_samples(run)
    if not groups:
        return None
    samples = np.concatenate(groups)
    cores = cores or os.cpu_count() or 1
    mean = float(samples.mean())
    stdev = float(samples.std(ddof=1)) if len(samples) > 1 else 0.0
    median = float(np.median(samples))
    items = np.median([r.items for r in run.repetitions if r.verified])
    low, high = tukey_outliers(samples)
    ok_processes = [p for p in run.processes if p.outcome == "ok" and p.index >= 0]
    wall = sum(p.wall_ns for p in ok_processes)
    cpu = sum(p.user_ns + p.sys_ns for p in ok_processes)
    return CaseStats(
        n=len(samples), mean_ns=mean, stdev_ns=stdev,
        deviation_pct=100 * stdev / mean if mean else 0.0,
        median_ns=median, median_ci_ns=confidence_interval(bootstrap_medians(groups)),
        p99_ns=float(np.percentile(samples, 99)), min_ns=float(samples.min()),
        max_ns=float(samples.max()), ips=1e9 / mean if mean else 0.0,
        items_per_s=items * 1e9 / median if median else 0.0,
        outliers_low=low, outliers_high=high,
        cpu_utilisation=cpu / (wall * cores) if wall else None,
        peak_rss_kb=max((p.peak_kb for p in ok_processes), default=None),
        process_wall_median_ns=float(np.median([p.wall_ns for p in ok_processes])) if ok_processes else None,
        largest_process_rss_kb=max((p.max_rss_kb for p in ok_processes), default=None),
        **warm_up_stats(run))


def warm_up_stats(run: CaseRun) -> dict:
    """The case's steady-state class and its warm-up figures, from what each process's first
    timed repetition carries (runner._warm_up); empty for a run from before protocol 4."""
    firsts = {}
    for rep in run.repetitions:
        if rep.verified and rep.process >= 0 and "steady_class" in rep.extra:
            firsts.setdefault(rep.process, rep.extra)
    if not firsts:
        return {}
    extras = list(firsts.values())
    number = lambda e, k: e.get(k) if isinstance(e.get(k), (int, float)) and not isinstance(e.get(k), bool) else None
    middle = lambda k: (float(np.median(values)) if (values := [v for e in extras if (v := number(e, k)) is not None])
                        else None)
    levels = [(float(level), float(number(e, "steady_spread_ns") or 0)) if (level := number(e, "steady_level_ns"))
              is not None else None for e in extras]
    return {"steady_class": case_class([str(e["steady_class"]) for e in extras], levels),
            "first_median_ns": middle("first_ns"), "warmup_reps_median": middle("warmup_reps"),
            "warmup_median_ns": middle("warmup_ns")}
