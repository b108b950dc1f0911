"""Size sweeps: the smallest input size from which a parallel model beats `seq`, with a CI.

At each size the ratio parallel/seq of medians is bootstrapped. The crossing is where
log(ratio) passes through 0, found by interpolating log(ratio) against log(size) between the
last size that is not significantly faster and the first that is significantly faster from
there on. Re-doing that on every bootstrap resample gives the crossing's 95 % CI.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

from parbench.analysis.stats import _rng, bootstrap_medians, confidence_interval

RESAMPLES = 1000


@dataclass
class CrossoverResult:
    sizes: list[float]
    ratio: list[float]                        # parallel median / seq median at each size
    ratio_ci: list[tuple[float, float]]
    crossover: float | None                   # None: never crosses in the measured range
    crossover_ci: tuple[float, float] | None
    verdict: str
    # What it is about, set where it is derived (analysis/derived.py):
    workload: str = ""
    runtime: str = ""
    model: str = ""
    param: str = ""                           # the swept param
    params: dict = field(default_factory=dict)          # the others, fixed
    seq_median_ns: list[float] = field(default_factory=list)
    parallel_median_ns: list[float] = field(default_factory=list)
    start: str = ""                           # the model's start mode (protocol 3), "" for none
    against: str = ""                         # what stands in seq's place: a user's first command line (exec --fit size)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass
class ModeRow:
    """One model's crossovers in each start mode, side by side."""
    runtime: str
    model: str
    crossover: dict = field(default_factory=dict)        # mode → size, or None (never crosses)
    crossover_ci: dict = field(default_factory=dict)     # mode → (low, high), or None
    # What warm removes from every repetition: the cold median less the warm one at the smallest
    # size both measured, where the work itself is next to nothing (None without both modes).
    fixed_cost_ns: float | None = None
    at_size: float | None = None


@dataclass
class CrossoverModes:
    """A size sweep's crossovers by start mode (cold: workers made in each repetition; warm: once
    per process), one row per parallel model."""
    workload: str
    param: str
    params: dict
    rows: list[ModeRow] = field(default_factory=list)

    def as_dict(self) -> dict:
        return asdict(self)


def by_mode(results: list[CrossoverResult]) -> list[CrossoverModes]:
    """The crossovers of one sweep regrouped: a table per workload and fixed params, a row per
    runtime and model, a column per start mode."""
    tables: dict[tuple, CrossoverModes] = {}
    for r in results:
        key = (r.workload, r.param, tuple(sorted(r.params.items(), key=str)))
        table = tables.setdefault(key, CrossoverModes(r.workload, r.param, dict(r.params)))
        row = next((x for x in table.rows if (x.runtime, x.model) == (r.runtime, r.model)), None)
        if row is None:
            row = ModeRow(r.runtime, r.model)
            table.rows.append(row)
        row.crossover[r.start or "cold"] = r.crossover
        row.crossover_ci[r.start or "cold"] = r.crossover_ci
    for table in tables.values():
        for row in table.rows:
            row.fixed_cost_ns, row.at_size = _fixed_cost(results, row)
    return list(tables.values())


def _fixed_cost(results: list[CrossoverResult], row: ModeRow) -> tuple[float | None, float | None]:
    cold, warm = (next((r for r in results if (r.runtime, r.model, r.start) == (row.runtime, row.model, mode)), None)
                  for mode in ("cold", "warm"))
    if cold is None or warm is None:
        return None, None
    shared = sorted(set(cold.sizes) & set(warm.sizes))
    if not shared:
        return None, None
    size = shared[0]
    return (cold.parallel_median_ns[cold.sizes.index(size)] - warm.parallel_median_ns[warm.sizes.index(size)],
            size)


def _crossing(sizes: np.ndarray, log_ratio: np.ndarray) -> float | None:
    """First size from which the ratio stays below 1, interpolated in log-log space."""
    below = log_ratio < 0
    if not below[-1]:
        return None
    first = len(below) - 1
    while first > 0 and below[first - 1]:
        first -= 1
    if first == 0:
        return float(sizes[0])
    x0, x1 = np.log(sizes[first - 1]), np.log(sizes[first])
    y0, y1 = log_ratio[first - 1], log_ratio[first]
    return float(np.exp(x0 + (0 - y0) * (x1 - x0) / (y1 - y0)))


def find_crossover(sizes: list[float], seq_groups: list[list[np.ndarray]],
                   parallel_groups: list[list[np.ndarray]]) -> CrossoverResult:
    """`seq_groups[i]` / `parallel_groups[i]`: samples grouped by process at `sizes[i]`."""
    order = np.argsort(sizes)
    sizes_sorted = np.asarray(sizes, dtype=float)[order]
    rng = _rng()
    boot = np.empty((len(sizes), RESAMPLES))
    ratios, cis = [], []
    for row, i in enumerate(order):
        seq = bootstrap_medians(seq_groups[i], RESAMPLES, rng)
        par = bootstrap_medians(parallel_groups[i], RESAMPLES, rng)
        boot[row] = par / seq
        ratios.append(float(np.median(np.concatenate(parallel_groups[i])) /
                            np.median(np.concatenate(seq_groups[i]))))
        cis.append(confidence_interval(boot[row]))
    point = _crossing(sizes_sorted, np.log(np.asarray(ratios)))
    significant_at_top = cis[-1][1] < 1.0
    if point is None or not significant_at_top:
        slower_everywhere = all(low > 1.0 for low, _ in cis)
        verdict = ("never crosses in range: parallel is slower at every size"
                   if slower_everywhere else
                   "never crosses in range with significance")
        return CrossoverResult(list(sizes_sorted), ratios, cis, None, None, verdict)
    crossings = [_crossing(sizes_sorted, np.log(boot[:, r])) for r in range(RESAMPLES)]
    found = np.array([c for c in crossings if c is not None])
    ci = confidence_interval(found) if len(found) >= RESAMPLES // 2 else None
    verdict = (f"parallel wins from about {point:.3g} (95% CI {ci[0]:.3g} – {ci[1]:.3g})" if ci
               else f"parallel wins from about {point:.3g} (CI unbounded: the crossing is not stable)")
    if point <= sizes_sorted[0]:
        verdict = f"parallel already wins at the smallest size ({sizes_sorted[0]:.3g})"
    return CrossoverResult(list(sizes_sorted), ratios, cis, point, ci, verdict)


def refine_between(sizes: list[float], ratios: list[float]) -> float | None:
    """The geometric midpoint of the bracket where the ratio crosses 1, for bisection steps."""
    order = np.argsort(sizes)
    s = np.asarray(sizes, dtype=float)[order]
    r = np.asarray(ratios)[order]
    for i in range(1, len(s)):
        if r[i - 1] >= 1 > r[i] and s[i] / s[i - 1] > 1.5:
            return float(np.sqrt(s[i - 1] * s[i]))
    return None
