"""Worker sweeps: speedup and efficiency, Amdahl's and the Universal Scalability Law's fits.

Amdahl:  S(p) = 1 / (f + (1 - f) / p)                  f = serial fraction
USL:     S(p) = p / (1 + σ (p - 1) + κ p (p - 1))      σ = contention, κ = coherency
Both are fitted by least squares (scipy) to the measured speedups, with 95 % confidence
intervals from the fit's covariance; a fit with no degrees of freedom left says so instead
of pretending. Predictions beyond the measured worker counts are labelled as such.
"""
from __future__ import annotations

import math
import warnings
from dataclasses import asdict, dataclass, field

import numpy as np

from parbench.analysis.stats import _rng, bootstrap_medians, confidence_interval


def amdahl(p, f):
    return 1.0 / (f + (1.0 - f) / np.asarray(p, dtype=float))


def usl(p, sigma, kappa):
    p = np.asarray(p, dtype=float)
    return p / (1.0 + sigma * (p - 1.0) + kappa * p * (p - 1.0))


@dataclass
class Fit:
    law: str
    params: dict[str, float]
    ci: dict[str, tuple[float, float] | None]   # None where the points cannot bound it
    residual_rms: float
    degrees_of_freedom: int
    ci_from: str = "the fit's covariance"        # or "resampled runs" (with_run_intervals)


@dataclass
class ScalingResult:
    workers: list[int]
    fitted_workers: list[int]            # the counts the laws were fitted to (at most the CPUs)
    speedup: list[float]
    efficiency: list[float]
    amdahl: Fit | None
    usl: Fit | None
    peak_workers: float | None           # USL's p* = sqrt((1 - σ) / κ), where κ > 0
    peak_speedup: float | None
    predictions: dict[int, dict[str, float]]   # worker count → law → predicted speedup
    measured_up_to: int
    note: str
    # What it is about, set where it is derived (analysis/derived.py):
    workload: str = ""
    runtime: str = ""
    model: str = ""
    params: dict = field(default_factory=dict)
    speedup_vs_seq: list[float] | None = None     # against the runtime's seq, where it has one
    baseline: str = ""                             # what `speedup` is against, in words
    cores: int = 0                                 # the logical CPUs it was measured on
    speedup_ci: list[tuple[float, float]] | None = None   # each speedup's 95% CI (with_run_intervals)
    # A user's command (exec --fit): what the sitting gave it at each worker count, and why no
    # law can be read off it, where none can (analysis/command_sweeps.py's sitting_quality).
    sitting: dict | None = None
    no_parallelism: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


def _fit(law: str, function, p, s, start, bounds, pinned: int = 0) -> Fit | None:
    """Least squares within the law's bounds; each CI is clipped to those bounds too.
    `pinned` points carry no information (S(1) = 1 when speedup is against 1 worker)."""
    from scipy import optimize, stats    # 0.8 s of imports: paid by the fits, not before a run starts
    names = ["f"] if law == "amdahl" else ["sigma", "kappa"]
    dof = len(p) - pinned - len(names)
    if dof < 0:
        return None
    try:
        with warnings.catch_warnings():
            # With no degrees of freedom left scipy warns that it has no covariance: the CIs
            # below say so to the user instead.
            warnings.simplefilter("ignore", optimize.OptimizeWarning)
            values, covariance = optimize.curve_fit(function, p, s, p0=start, bounds=bounds, maxfev=20000)
    except (RuntimeError, ValueError):
        return None
    residual = float(np.sqrt(np.mean((function(p, *values) - s) ** 2)))
    ci: dict[str, tuple[float, float] | None] = {}
    for i, name in enumerate(names):
        variance = covariance[i, i] if covariance is not None else math.inf
        if dof == 0 or not np.isfinite(variance):
            ci[name] = None
        else:
            half = stats.t.ppf(0.975, dof) * math.sqrt(variance)
            ci[name] = (float(max(bounds[0][i], values[i] - half)), float(min(bounds[1][i], values[i] + half)))
    return Fit(law, dict(zip(names, map(float, values))), ci, residual, dof)


def fit_scaling(workers: list[int], times_ns: list[float], cores: int,
                baseline_ns: float | None = None) -> ScalingResult:
    """`times_ns[i]` is the median at `workers[i]`; speedup is against `baseline_ns` (the
    runtime's seq) when given, else against the model's own time at one worker."""
    order = np.argsort(workers)
    p = np.asarray(workers, dtype=float)[order]
    t = np.asarray(times_ns, dtype=float)[order]
    reference = baseline_ns if baseline_ns else (t[p == 1][0] if (p == 1).any() else None)
    if reference is None:
        raise ValueError("a worker sweep needs a 1-worker point or the seq time as baseline")
    s = reference / t
    # Beyond the logical CPUs a worker brings no hardware, so those points would teach the
    # laws the machine's size rather than the program's serial fraction: shown, not fitted.
    inside = p <= cores
    fitted = [int(x) for x in p[inside]]
    pinned = 0 if baseline_ns else int((p[inside] == 1).any())
    amdahl_fit = _fit("amdahl", amdahl, p[inside], s[inside], [0.1], ([0.0], [1.0]), pinned)
    usl_fit = _fit("usl", usl, p[inside], s[inside], [0.05, 0.001], ([-1.0, 0.0], [1.0, 1.0]), pinned)
    peak_p = peak_s = None
    if usl_fit and usl_fit.params["kappa"] > 1e-9 and usl_fit.params["sigma"] < 1:
        candidate = math.sqrt((1 - usl_fit.params["sigma"]) / usl_fit.params["kappa"])
        if candidate >= 1:       # below one worker the "peak" is only saying: do not parallelise
            peak_p = candidate
            peak_s = float(usl(peak_p, usl_fit.params["sigma"], usl_fit.params["kappa"]))
    predictions = {}
    for factor in (2, 4, 8):
        n = cores * factor
        predictions[n] = {}
        if amdahl_fit:
            predictions[n]["amdahl"] = float(amdahl(n, amdahl_fit.params["f"]))
        if usl_fit:
            predictions[n]["usl"] = float(usl(n, usl_fit.params["sigma"], usl_fit.params["kappa"]))
    notes = []
    if not inside.all():
        notes.append(f"worker counts above the {cores} logical CPUs "
                     f"({', '.join(str(int(x)) for x in p[~inside])}) are measured but left out of the fits")
    if usl_fit is None or usl_fit.degrees_of_freedom == 0:
        notes.append(f"{len(fitted)} fitted worker counts: the USL's two parameters need a point more "
                     "than they are to be bounded; its curve is shown without CIs" if usl_fit else
                     f"{len(fitted)} fitted worker counts are too few for the USL (σ and κ need 1 and at "
                     "least 2 more counts within the CPUs: a machine with more cores)")
    note = "; ".join(notes)
    return ScalingResult(
        workers=[int(x) for x in p], fitted_workers=fitted, speedup=[float(x) for x in s],
        efficiency=[float(x / n) for x, n in zip(s, p)], amdahl=amdahl_fit, usl=usl_fit,
        peak_workers=peak_p, peak_speedup=peak_s, predictions=predictions,
        measured_up_to=int(p.max()), note=note)


def with_run_intervals(result: ScalingResult, groups: list[list[np.ndarray]], resamples: int = 400) -> ScalingResult:
    """Each speedup's 95 % CI from the runs themselves, and Amdahl's f's where the fit cannot
    bound it (two worker counts leave it no degree of freedom: a 2-core machine's whole sweep).
    `groups[i]`: the samples at `result.workers[i]`, grouped by process. Every bootstrap resample
    of the runs gives one speedup curve and one refit; their 2.5th and 97.5th percentiles are the
    CIs, so an f from two points is bounded by how much the runs themselves vary."""
    rng = _rng()
    p = np.asarray(result.workers, dtype=float)
    medians = np.array([bootstrap_medians(g, resamples, rng) for g in groups])     # (workers, resamples)
    speedups = medians[p == 1][0] / medians
    speedup_ci = [confidence_interval(row) for row in speedups]
    amdahl_fit = result.amdahl
    fitted = np.isin(p, result.fitted_workers)
    if amdahl_fit is not None and amdahl_fit.ci["f"] is None and fitted.sum() >= 2:
        refits = [_fit("amdahl", amdahl, p[fitted], speedups[fitted, r], [0.1], ([0.0], [1.0]))
                  for r in range(resamples)]
        values = np.array([f.params["f"] for f in refits if f is not None])
        if len(values) >= resamples // 2:
            amdahl_fit = Fit(amdahl_fit.law, amdahl_fit.params, {"f": confidence_interval(values)},
                             amdahl_fit.residual_rms, amdahl_fit.degrees_of_freedom, "resampled runs")
    return ScalingResult(**{**result.__dict__, "amdahl": amdahl_fit, "speedup_ci": speedup_ci})
