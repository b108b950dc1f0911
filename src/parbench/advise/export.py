"""`advise --export-json`: the advice as one JSON document for scripts (schemas/advise.schema.json);
times in nanoseconds, memory in bytes, as the store keeps them."""
from __future__ import annotations

import dataclasses
from typing import Any

from parbench.advise.advice import Advice, other_figure
from parbench.advise.check import CheckRow
from parbench.escaping import json_text

SCHEMA_VERSION = 1


def _band(band) -> dict[str, float] | None:
    return None if band is None else {"median": band.median, "low": band.low, "high": band.high}


def _prediction(p) -> dict[str, Any]:
    return {"runtime": p.runtime, "model": p.model, "family": p.family, "workers": p.workers,
            "time_ns": _band(p.time), "peak_memory_bytes": _band(p.memory), "memory_basis": p.memory_basis,
            "fit": p.size_basis, "extrapolated": p.extrapolated, "measured_values": p.measured_values,
            "measured_workers": p.measured_workers, "workers_basis": p.worker_basis, "runs": p.run_ids,
            "crossover": p.crossover}


def _entry(entry, other: dict, other_name: str) -> dict[str, Any]:
    margin = entry.margin
    return {"rank": entry.rank, **_prediction(entry.prediction),
            "other_figure": {"figure": other_name, "time_ns": _band(other.get(entry.prediction.name))},
            "margin_to_next": None if margin is None else {
                "ratio": margin.ratio, "low": margin.low, "high": margin.high, "significant": margin.significant}}


def document(advice: Advice, checks: list[CheckRow] | None = None, db: str | None = None) -> dict[str, Any]:
    q = advice.question
    return {
        "schema_version": SCHEMA_VERSION, "generator": "parbench advise",
        "question": {**dataclasses.asdict(q), "runtimes": list(q.runtimes), "families": list(q.families)},
        "machine": {k: advice.machine.get(k) for k in ("hostname", "cpu", "logical_cpus")}, "cpus": advice.cpus,
        "answers": "peak_memory" if q.by_memory else q.answers,
        "runs": advice.run_ids, "note": advice.note,
        "rankings": [{"context": r.context, "ranked_by": "peak_memory" if q.by_memory else "time",
                      "entries": [_entry(e, r.other, other_figure(q)) for e in r.entries],
                      "not_predicted": [dataclasses.asdict(u) for u in r.unpredictable]} for r in advice.rankings],
        "missing": [{"reason": m.reason, "command": m.command(db)} for m in advice.missing],
        "checks": [{**_prediction(c.prediction), "measured_ns": _band(c.measured), "inside": c.inside,
                    "note": c.note} for c in (checks or [])],
    }


def render(advice: Advice, checks: list[CheckRow] | None = None, db: str | None = None) -> str:
    return json_text(document(advice, checks, db), indent=1) + "\n"
