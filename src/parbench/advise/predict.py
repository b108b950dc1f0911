"""One candidate's predicted median and interval at the asked value and cores, from its points.

Every stored CI is first widened in log space by √2: the prediction is for a new sitting's median
(for_a_new_sitting). Along the swept value: a measured value is its measurement; within the
measured range the median and both bounds are interpolated in log-log space between the two
points around it;
beyond it they follow a line fitted by least squares to every point (time = start-up + cost per
item × value), or, where that line does not rise, stay proportional to the nearest point. An
extrapolated interval is widened by WIDEN_PER_DOUBLING for each doubling beyond the measured
range (at least one): the line's own CI knows nothing of caches or memory bandwidth changing
on the way. Across workers: the time at the nearest measured worker count, scaled by the
speedup ratio of a USL (else Amdahl) fit from a worker sweep, its interval from the corners of
the fit's parameter CIs; cores beyond the machine's are always "not measured". The same rules
are evaluated in the HTML panel's JavaScript (report/advise_panel.py), so both answer alike.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from parbench.advise.evidence import Point, Series
from parbench.analysis import crossover, per_task, scaling

WIDEN_PER_DOUBLING = 0.10
NEW_SITTING = math.sqrt(2)


@dataclass(frozen=True)
class Band:
    median: float
    low: float
    high: float

    def scaled(self, low_factor: float, median_factor: float, high_factor: float) -> "Band":
        return Band(self.median * median_factor, self.low * low_factor, self.high * high_factor)


@dataclass(frozen=True)
class AlongValue:
    band: Band
    basis: str                     # measured | interpolated | linear per item | proportional
    extrapolated: bool
    doublings: float               # how far beyond the measured range, in doublings (0 inside)


@dataclass(frozen=True)
class WorkerLaw:
    """A fitted speedup law of one candidate: S(p) against its runtime's seq or its 1 worker."""
    law: str                                   # usl | amdahl
    params: dict[str, float]
    ci: dict[str, tuple[float, float] | None]
    fitted_workers: list[int]
    at_value: float                            # the swept value the worker sweep ran at
    run_ids: list[int]

    def speedup(self, workers: float) -> float:
        if self.law == "usl":
            return float(scaling.usl(workers, self.params["sigma"], self.params["kappa"]))
        return float(scaling.amdahl(workers, self.params["f"]))

    def speedup_range(self, workers: float) -> tuple[float, float] | None:
        """The lowest and highest speedup the parameters' CIs allow, None where unbounded."""
        if any(ci is None for ci in self.ci.values()):
            return None
        names = list(self.ci)
        # The corners of the parameters' CIs, kept to the law's own domain (USL: σ and κ ≥ 0;
        # Amdahl: 0 ≤ f ≤ 1): a CI that reaches below it describes no machine, and its corner
        # predicts a negative or infinite speedup far beyond the fitted workers.
        corners = [{n: min(max(v, 0.0), 1.0) if n in ("f", "sigma") else max(v, 0.0) for n, v in zip(names, combo)}
                   for combo in _product([self.ci[n] for n in names])]
        values = [WorkerLaw(self.law, c, self.ci, self.fitted_workers, self.at_value, self.run_ids).speedup(workers)
                  for c in corners] + [self.speedup(workers)]
        if not all(math.isfinite(v) and v > 0 for v in values):
            return None
        return min(values), max(values)


@dataclass
class Prediction:
    runtime: str
    model: str
    family: str
    context: dict[str, Any]
    workers: int | None                 # the asked cores (None: a model without workers)
    time: Band
    size_basis: str
    extrapolated: bool
    measured_values: list[float]
    measured_workers: int | None        # the worker count the size points were measured at
    worker_basis: str                   # "" | measured | "USL fit from 1–2 workers" | "not measured: …"
    memory: Band | None
    memory_basis: str
    run_ids: list[int] = field(default_factory=list)
    crossover: str = ""                 # where it starts to beat its runtime's seq, over the measured values

    @property
    def name(self) -> str:
        start = self.context.get("start")
        return (f"{self.runtime} {self.model}" + (f" ×{self.workers}" if self.workers else "")
                + (f" {start}" if start else ""))


@dataclass
class Unpredictable:
    runtime: str
    model: str
    family: str
    context: dict[str, Any]
    reason: str


def _product(ranges: list[tuple[float, float]]) -> list[tuple[float, ...]]:
    combos: list[tuple[float, ...]] = [()]
    for low, high in ranges:
        combos = [c + (v,) for c in combos for v in (low, high)]
    return combos


def doublings_beyond(value: float, smallest: float, largest: float) -> float:
    if smallest <= value <= largest:
        return 0.0
    return abs(math.log2(value / (largest if value > largest else smallest)))


def widening(doublings: float) -> float:
    """The share an extrapolated interval is widened by on each side."""
    return WIDEN_PER_DOUBLING * max(1.0, doublings)


def _interpolate(value: float, a: Point, b: Point) -> Band:
    share = (math.log(value) - math.log(a.value)) / (math.log(b.value) - math.log(a.value))
    at = lambda ya, yb: math.exp(math.log(ya) + share * (math.log(yb) - math.log(ya)))
    return Band(at(a.median_ns, b.median_ns), at(a.low_ns, b.low_ns), at(a.high_ns, b.high_ns))


def _line_at(xs: list[float], ys: list[float], value: float) -> tuple[float, float]:
    """(the least-squares line's value at `value`, its slope)."""
    slope, intercept = np.polyfit(np.asarray(xs, dtype=float), np.asarray(ys, dtype=float), 1)
    return float(intercept + slope * value), float(slope)


def for_a_new_sitting(point: Point) -> Point:
    """The point's CI widened in log space by NEW_SITTING: a prediction is checked against a new
    measurement, whose median has its own sampling error beside the stored one's (the difference
    of two independent estimates of equal precision spreads √2 times as wide)."""
    widen = lambda bound: point.median_ns * (bound / point.median_ns) ** NEW_SITTING
    return replace(point, low_ns=widen(point.low_ns), high_ns=widen(point.high_ns))


def along_value(points: list[Point], value: float) -> AlongValue:
    """The time at `value` from points measured at one worker count (sorted by value)."""
    points = [for_a_new_sitting(p) for p in points]
    exact = next((p for p in points if math.isclose(p.value, value, rel_tol=1e-9)), None)
    if exact is not None:
        return AlongValue(Band(exact.median_ns, exact.low_ns, exact.high_ns), "measured", False, 0.0)
    smallest, largest = points[0].value, points[-1].value
    if smallest < value < largest:
        above = next(i for i, p in enumerate(points) if p.value > value)
        return AlongValue(_interpolate(value, points[above - 1], points[above]), "interpolated", False, 0.0)
    doublings = doublings_beyond(value, smallest, largest)
    nearest = points[-1] if value > largest else points[0]
    band, basis = None, "proportional"
    if len(points) >= 2:
        xs = [p.value for p in points]
        fitted = [_line_at(xs, [getattr(p, f) for p in points], value) for f in ("median_ns", "low_ns", "high_ns")]
        if all(y > 0 and slope > 0 for y, slope in fitted):
            # Lines through the lows and the highs fitted apart can cross beyond the measured
            # values (a narrow CI at one end, a wide one at the other): the band is then what
            # the three lines span, never an interval whose low is above its high.
            median, low, high = (y for y, _ in fitted)
            band, basis = Band(median, min(low, median, high), max(low, median, high)), "linear per item"
    if band is None:
        ratio = value / nearest.value
        band = Band(nearest.median_ns * ratio, nearest.low_ns * ratio, nearest.high_ns * ratio)
    margin = widening(doublings)
    return AlongValue(band.scaled(1 / (1 + margin), 1.0, 1 + margin), basis, True, doublings)


def worker_law(series: Series, seq: Series | None, cpus: int) -> WorkerLaw | None:
    """The speedup law of the value measured at the most worker counts (a worker sweep)."""
    by_value: dict[float, list[Point]] = {}
    for p in series.points:
        if p.workers:
            by_value.setdefault(p.value, []).append(p)
    swept = [(len(ps), value) for value, ps in by_value.items() if len(ps) >= 2]
    if not swept:
        return None
    _, value = max(swept)
    points = sorted(by_value[value], key=lambda p: p.workers)
    baseline = next((p for p in (seq.points if seq else []) if p.value == value), None)
    try:
        fitted = scaling.fit_scaling([p.workers for p in points], [p.median_ns for p in points], cpus,
                                     baseline.median_ns if baseline else None)
    except ValueError:
        return None
    chosen = next((f for f in (fitted.usl, fitted.amdahl) if f and f.degrees_of_freedom > 0), None) \
        or fitted.amdahl or fitted.usl
    if chosen is None:
        return None
    runs = sorted({p.run_id for p in points} | ({baseline.run_id} if baseline else set()))
    return WorkerLaw(chosen.law, chosen.params, chosen.ci, fitted.fitted_workers, value, runs)


def nearest_workers(counts: list[int], cores: int) -> int:
    """The measured worker count closest to the asked cores (in ratio), the larger on a tie."""
    return min(counts, key=lambda w: (abs(math.log(w / cores)), -w))


def law_name(law: WorkerLaw) -> str:
    return f"{'USL' if law.law == 'usl' else 'Amdahl'} fit from {min(law.fitted_workers)}–{max(law.fitted_workers)} workers"


def across_workers(time: Band, measured: int, cores: int, law: WorkerLaw, cpus: int) -> tuple[Band, str]:
    """The time at `cores` from the time at `measured` workers, through the law's speedups."""
    base = law.speedup(measured)
    ratio = base / law.speedup(cores)
    bounds = law.speedup_range(cores)
    if bounds is None:                      # no CI on the law: widened like any extrapolation
        fitted = law.fitted_workers
        margin = widening(doublings_beyond(cores, min(fitted), max(fitted)))
        band = time.scaled(ratio / (1 + margin), ratio, ratio * (1 + margin))
    else:
        band = time.scaled(base / bounds[1], ratio, base / bounds[0])
    basis = law_name(law)
    return band, (f"not measured: {basis}" if cores > cpus or cores > max(law.fitted_workers) else basis)


def memory_at(points: list[Point], value: float) -> tuple[Band | None, str]:
    """Peak memory at `value`: measured, or the line of peak against value (its slope's CI)."""
    measured = [p for p in points if p.peak_bytes]
    exact = next((p for p in measured if math.isclose(p.value, value, rel_tol=1e-9)), None)
    if exact is not None:
        return Band(exact.peak_bytes, exact.peak_bytes, exact.peak_bytes), "measured"
    line = per_task.fit_line([p.value for p in measured], [p.peak_bytes for p in measured])
    if line is None:
        return None, "one measured value: no slope"
    at = lambda slope: max(0.0, line.intercept + slope * value)
    low, high = (at(line.per_unit_ci[0]), at(line.per_unit_ci[1])) if line.per_unit_ci else (at(line.per_unit),) * 2
    return Band(at(line.per_unit), min(low, high), max(low, high)), \
        f"line over {line.points} values" + ("" if line.per_unit_ci else ", no interval from 2")


def seq_crossover(points: list[Point], seq: Series | None) -> str:
    """analysis/crossover.py's verdict over the values both this model and its seq measured."""
    seq_at = {p.value: p for p in (seq.points if seq else []) if p.groups}
    common = [p for p in points if p.value in seq_at and p.groups]
    if len(common) < 2:
        return ""
    found = crossover.find_crossover([p.value for p in common], [list(seq_at[p.value].groups) for p in common],
                                     [list(p.groups) for p in common])
    return f"against seq over {len(common)} values: {found.verdict}"


def predict(series: Series, seq: Series | None, value: float, cores: int, cpus: int) -> Prediction | Unpredictable:
    """The candidate at `value` on `cores`, or why it cannot be predicted from its points."""
    context = dict(series.context)
    counts = [w for w in series.worker_counts() if w]
    takes_workers = bool(counts)
    # Workers beyond the CPUs measure the machine's size, not the program: never taken as the answer.
    usable = [w for w in counts if w <= cpus] or counts
    measured = nearest_workers(usable, cores) if takes_workers else None
    points = series.at_workers(measured)
    estimate = along_value(points, value)
    time, worker_basis, law = estimate.band, "", None
    if takes_workers and (measured != cores or cores > cpus):
        law = worker_law(series, seq, cpus)
        if law is None:
            return Unpredictable(series.runtime, series.model, series.family, context,
                                 f"measured at ×{measured} only: a worker sweep would give the speedup at ×{cores}")
        time, worker_basis = across_workers(time, measured, cores, law, cpus)
    elif takes_workers:
        worker_basis = "measured"
    memory, memory_basis = memory_at(points, value)
    runs = sorted({p.run_id for p in points} | set(law.run_ids if law else []))
    return Prediction(series.runtime, series.model, series.family, context, cores if takes_workers else None,
                      time, estimate.basis, estimate.extrapolated, [p.value for p in points], measured,
                      worker_basis, memory, memory_basis, runs, seq_crossover(points, seq) if takes_workers else "")
