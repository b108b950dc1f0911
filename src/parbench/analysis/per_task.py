"""Task-count sweeps: time and memory per unit as regression slopes, and where it stopped.

Peak RSS against N is a line whose intercept is the runtime's own baseline and whose slope is
the bytes each task costs; the same for time. Unlike the seed article's per-task division,
the baseline does not pollute the per-task figure.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np


@dataclass
class Slope:
    per_unit: float
    per_unit_ci: tuple[float, float] | None
    intercept: float
    r_squared: float
    points: int


@dataclass
class PerTaskResult:
    counts: list[int]
    median_ns: list[float]
    peak_rss_bytes: list[float]
    time_per_unit_ns: Slope | None
    bytes_per_unit: Slope | None
    largest_ok: int | None
    failure: dict | None          # {"n": …, "outcome": "limit", "detail": "…"} for the next size
    # What it is about, set where it is derived (analysis/derived.py):
    workload: str = ""
    runtime: str = ""
    model: str = ""
    param: str = ""
    params: dict = field(default_factory=dict)
    family: str = ""              # the model's family: a seq model makes no units to weigh

    def as_dict(self) -> dict:
        return asdict(self)


def fit_line(x: list[float], y: list[float]) -> Slope | None:
    from scipy import stats        # 0.8 s of imports: paid by the analyses, not before a run starts
    if len(x) < 2 or len(set(x)) < 2:
        return None
    fit = stats.linregress(np.asarray(x, dtype=float), np.asarray(y, dtype=float))
    ci = None
    if len(x) > 2:
        half = stats.t.ppf(0.975, len(x) - 2) * fit.stderr
        ci = (float(fit.slope - half), float(fit.slope + half))
    return Slope(float(fit.slope), ci, float(fit.intercept), float(fit.rvalue ** 2), len(x))


def per_task_costs(counts: list[int], median_ns: list[float], peak_rss_bytes: list[float],
                   failure: dict | None = None) -> PerTaskResult:
    return PerTaskResult(list(counts), list(median_ns), list(peak_rss_bytes),
                         fit_line(counts, median_ns), fit_line(counts, peak_rss_bytes),
                         max(counts) if counts else None, failure)
