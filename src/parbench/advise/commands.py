"""`parbench advise --exec RUN --cores N`: the question a user asks of their own stored sweeps
(`parbench exec --fit`): at N cores, which command, and from what size. Which command comes
from each worker sweep's Amdahl fit, its serial fraction's interval carried into the predicted
time, and widened beyond the worker counts measured as every extrapolation of advise's is
(advise/predict.py's widening: WIDEN_PER_DOUBLING of the time on each side for each doubling
beyond, at least one), since Amdahl's law knows nothing of the memory bandwidth, caches or
sockets on the way; from what size is the size sweep's crossover with its CI, as measured (a
crossing is not predicted to other core counts)."""
from __future__ import annotations

from dataclasses import dataclass

from parbench.analysis.command_sweeps import analyze_commands, number, template_index
from parbench.analysis.crossover import CrossoverResult
from parbench.advise.predict import doublings_beyond, widening
from parbench.analysis.scaling import ScalingResult, amdahl
from parbench.records import RunRecord
from parbench.units import format_duration


@dataclass(frozen=True)
class Prediction:
    command: str
    run_id: int
    one_worker_ns: float           # the measured median at 1 worker
    time_ns: float                 # predicted at the cores asked about
    low_ns: float                  # its 95 % interval: the 1-worker CI and f's CI carried through
    high_ns: float
    serial_fraction: float
    measured_up_to: int            # the largest worker count measured: beyond it, a prediction
    widened_by: float = 0.0        # the share the interval was widened by on each side (extrapolated)
    no_parallelism: str = ""       # why the sweep's sitting could not show parallelism, or ""


def _one_worker_ci(record: RunRecord, fit: dict, index: int, other: dict) -> tuple[float, float, float] | None:
    for result in record.results:
        params = {k: v for k, v in result.case.params.items() if k != fit["param"]}
        if (result.stats is not None and number(result.case.params.get(fit["param"])) == 1 and params == other
                and template_index(result.case, fit["commands"], fit["template_of"]) == index):
            return result.stats.median_ns, *result.stats.median_ci_ns
    return None


def predictions(record: RunRecord, cores: int) -> list[Prediction]:
    """Each command line of a stored worker sweep, its time predicted at `cores` workers."""
    fit = record.options.get("fit") or {}
    out = []
    for name, subject, result in analyze_commands(record):
        if name != "scaling" or not isinstance(result, ScalingResult) or result.amdahl is None:
            continue
        measured = _one_worker_ci(record, fit, fit["commands"].index(result.model), result.params)
        if measured is None:
            continue
        median, low, high = measured
        f = result.amdahl.params["f"]
        f_low, f_high = result.amdahl.ci["f"] or (0.0, 1.0)      # no interval: all Amdahl allows
        # The predicted time grows with f, and with the 1-worker time: their ends bound it; the
        # farther beyond the counts measured, the less f's interval alone covers.
        margin = widening(doublings_beyond(cores, 1, result.measured_up_to)) if cores > result.measured_up_to else 0.0
        out.append(Prediction(subject, record.id, median, median / float(amdahl(cores, f)),
                              low / float(amdahl(cores, f_low)) / (1 + margin),
                              high / float(amdahl(cores, f_high)) * (1 + margin),
                              f, result.measured_up_to, margin, result.no_parallelism))
    return out


def crossings(record: RunRecord) -> list[tuple[str, CrossoverResult]]:
    return [(subject, result) for name, subject, result in analyze_commands(record)
            if name == "crossover" and isinstance(result, CrossoverResult)]


def _which(found: list[Prediction], cores: int) -> list[str]:
    if not found:
        return []
    ranked = sorted(found, key=lambda p: p.time_ns)
    beyond = max(p.measured_up_to for p in found) < cores
    lines = [f"Which command at {cores} cores" + (f" (predicted by Amdahl's law beyond the {max(p.measured_up_to for p in found)}"
                                                  " workers measured)" if beyond else "") + ":"]
    for p in ranked:
        widened = (f", widened ±{100 * p.widened_by:.0f}% for extrapolating {doublings_beyond(cores, 1, p.measured_up_to):.1f} "
                   f"doublings beyond {p.measured_up_to} workers" if p.widened_by else "")
        lines.append(f"  {p.command}: {format_duration(p.time_ns)} (95% interval {format_duration(p.low_ns)} – "
                     f"{format_duration(p.high_ns)}{widened}); 1 worker {format_duration(p.one_worker_ns)}, f = "
                     f"{p.serial_fraction:.3f} [run {p.run_id}]")
        if p.no_parallelism:
            lines.append(f"    its sweep's sitting showed no parallelism ({p.no_parallelism}): f is the machine's "
                         "as much as the command's; sweep it again on free cores")
    if len(ranked) > 1:
        first, second = ranked[0], ranked[1]
        lines.append(f"  → {first.command}" + (" is predicted fastest: its interval lies below every other's"
                                               if first.high_ns < second.low_ns else
                                               f" is predicted fastest, but its interval overlaps {second.command}'s: "
                                               "no clear winner from these runs"))
    return lines


def _from_what_size(found: list[tuple[str, CrossoverResult, RunRecord]]) -> list[str]:
    if not found:
        return []
    lines = ["From what size (measured crossings; the crossing is not predicted to other core counts):"]
    for subject, r, record in found:
        cpus = record.machine.get("logical_cpus")
        if r.crossover is None:
            lines.append(f"  {subject}: {r.verdict} ({r.param} {r.sizes[0]:,.0f} – {r.sizes[-1]:,.0f}) [run {record.id}]")
            continue
        ci = f" (95% CI {r.crossover_ci[0]:,.0f} – {r.crossover_ci[1]:,.0f})" if r.crossover_ci else " (no CI)"
        lines.append(f"  {subject}: faster from {r.param} ≈ {r.crossover:,.0f}{ci}, on {cpus} logical CPUs "
                     f"[run {record.id}]")
    return lines


def unfitted_reasons(records: list[RunRecord]) -> list[str]:
    """Why a stored run has no fit to advise from (its swept values are not its axis's)."""
    return [f"run {record.id} has no fit: {result.reason}" for record in records
            for name, _, result in analyze_commands(record) if name == "unfitted"]


def advice_lines(records: list[RunRecord], cores: int) -> list[str]:
    """The answer, from the stored `exec --fit` runs given; [] when none of them has a fit."""
    found = [p for record in records for p in predictions(record, cores)]
    crossed = [(subject, r, record) for record in records for subject, r in crossings(record)]
    lines = _which(found, cores)
    if crossed:
        lines += ([""] if lines else []) + _from_what_size(crossed)
    return lines


def document(records: list[RunRecord], cores: int) -> dict:
    """`advise --exec RUN --export-json FILE`: the same answer for scripts; times in nanoseconds.
    Commands fastest first, as the console lists them; each crossing with its CI (None: none)."""
    ranked = sorted((p for record in records for p in predictions(record, cores)), key=lambda p: p.time_ns)
    return {
        "schema_version": 1, "generator": "parbench advise --exec", "cores": cores,
        "runs": [record.id for record in records],
        "which_command": [{"command": p.command, "run": p.run_id, "time_ns": {"median": p.time_ns, "low": p.low_ns,
                                                                            "high": p.high_ns},
                           "one_worker_ns": p.one_worker_ns, "serial_fraction": p.serial_fraction,
                           "measured_up_to_workers": p.measured_up_to, "predicted_beyond_measured": p.measured_up_to < cores,
                           "widened_by": p.widened_by, "no_parallelism": p.no_parallelism or None}
                          for p in ranked],
        "clear_winner": len(ranked) > 1 and ranked[0].high_ns < ranked[1].low_ns,
        "crossings": [{"subject": subject, "run": record.id, "param": r.param, "crossover": r.crossover,
                       "ci": list(r.crossover_ci) if r.crossover_ci else None, "verdict": r.verdict,
                       "range": [r.sizes[0], r.sizes[-1]], "logical_cpus": record.machine.get("logical_cpus")}
                      for record in records for subject, r in crossings(record)],
    }
