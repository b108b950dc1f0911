"""The typed result of every analysis kind, and its plain dict (what the store and the JSON export
hold) both ways: the analysis stage hands typed results to every renderer, which read fields,
never string keys. A kind without a type here (another tool's, a newer parbench's) stays a dict,
which no renderer shows."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable

from parbench.analysis.amdahl_shares import AmdahlRow, AmdahlShares
from parbench.analysis.command_sweeps import Unfitted
from parbench.analysis.crossover import CrossoverModes, CrossoverResult, ModeRow
from parbench.analysis.drift import Drift
from parbench.analysis.per_task import PerTaskResult, Slope
from parbench.analysis.scaling import Fit, ScalingResult
from parbench.analysis.startup import TimeSplit
from parbench.records import Analysis


@dataclass
class TimeSplits:
    """Where each case's process time goes (analysis/startup.py), one row per case."""
    rows: list[TimeSplit]


@dataclass
class MachineCeiling:
    """The machine's own ceiling for one table, measured by the harness in its sitting."""
    name: str                 # what was measured ("memcpy", …)
    ns: float


def _fields(record_type: type, data: dict) -> dict[str, Any]:
    """The fields of record_type that data has (older results may lack the newer ones)."""
    return {f.name: data[f.name] for f in dataclasses.fields(record_type) if f.name in data}


def _pair(value) -> tuple[float, float] | None:
    return tuple(value) if value else None


def _fit(data: dict | None) -> Fit | None:
    if data is None:
        return None
    return Fit(data["law"], dict(data["params"]), {name: _pair(ci) for name, ci in data["ci"].items()},
               data["residual_rms"], data["degrees_of_freedom"], data.get("ci_from", "the fit's covariance"))


def _slope(data: dict | None) -> Slope | None:
    return None if data is None else Slope(**{**data, "per_unit_ci": _pair(data.get("per_unit_ci"))})


def _scaling(data: dict) -> ScalingResult:
    return ScalingResult(**{**_fields(ScalingResult, data), "amdahl": _fit(data.get("amdahl")),
                            "usl": _fit(data.get("usl")),
                            "speedup_ci": [tuple(ci) for ci in data["speedup_ci"]] if data.get("speedup_ci") else None,
                            # JSON keys are text: the worker counts become numbers again
                            "predictions": {int(n): laws for n, laws in data.get("predictions", {}).items()}})


def _crossover(data: dict) -> CrossoverResult:
    return CrossoverResult(**{**_fields(CrossoverResult, data), "ratio_ci": [_pair(ci) for ci in data["ratio_ci"]],
                              "crossover_ci": _pair(data.get("crossover_ci"))})


def _crossover_modes(data: dict) -> CrossoverModes:
    return CrossoverModes(**{**_fields(CrossoverModes, data), "rows": [
        ModeRow(**{**row, "crossover_ci": {k: _pair(v) for k, v in row.get("crossover_ci", {}).items()}})
        for row in data["rows"]]})


def _per_task(data: dict) -> PerTaskResult:
    return PerTaskResult(**{**_fields(PerTaskResult, data), "time_per_unit_ns": _slope(data.get("time_per_unit_ns")),
                            "bytes_per_unit": _slope(data.get("bytes_per_unit"))})


def _amdahl_shares(data: dict) -> AmdahlShares:
    return AmdahlShares(**{**_fields(AmdahlShares, data), "rows": [AmdahlRow(**row) for row in data["rows"]]})


DECODERS: dict[str, Callable[[dict], object]] = {
    "scaling": _scaling, "crossover": _crossover, "per-task": _per_task, "amdahl-shares": _amdahl_shares,
    "crossover-modes": _crossover_modes,
    "time-split": lambda data: TimeSplits([TimeSplit(**row) for row in data["rows"]]),
    "drift": lambda data: Drift(**data),
    "machine-ceiling": lambda data: MachineCeiling(**data),
    "unfitted": lambda data: Unfitted(**data),
}


def typed(analysis: tuple[str, str, Any]) -> Analysis:
    """A stored (name, subject, dict) with its result typed; as it was where the name has no type
    or the dict is not one of it (a hand-edited store): shown by no renderer, lost to none."""
    name, subject, result = analysis
    decode = DECODERS.get(name)
    if decode is None or not isinstance(result, dict):
        return Analysis(name, subject, result)
    try:
        return Analysis(name, subject, decode(result))
    except (KeyError, TypeError, ValueError):
        return Analysis(name, subject, result)


def plain(result: Any) -> Any:
    """A result as the store and the JSON export hold it: a plain dict."""
    return dataclasses.asdict(result) if dataclasses.is_dataclass(result) else result
