"""The JSON export: hyperfine's field names for what hyperfine has (results[].command, mean,
stddev, median, user, system, min, max, times, exit_codes, parameters; times in seconds), and
parbench's own fields beside them (the case, its CI, memory of the whole tree, verification,
each process, the comparisons, the analyses). Versioned by `schema_version`; the JSON Schema is
schemas/parbench-export.schema.json. `read` turns an export back into runs (compare of files)."""
from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np

from parbench.escaping import json_text
from parbench.export.base import Exporter, Report
from parbench.records import Case, CaseResult, CaseRun, ProcessMeasurement, RunRecord
from parbench.store import shapes

SCHEMA_VERSION = 1
S = 1e-9        # ns → s


def _seconds(values) -> list[float]:
    return [v * S for v in values]


def _result(result: CaseResult) -> dict[str, Any]:
    case, run, s = result.case, result.run, result.stats
    verified = [r for r in run.repetitions if r.verified]
    times = [r.ns for r in verified]
    timed = [p for p in run.processes if p.index >= 0]
    ok = [p for p in timed if p.outcome == "ok"]
    out: dict[str, Any] = {
        # hyperfine's fields
        "command": case.model if case.workload == "exec" else case.label,
        "mean": s.mean_ns * S, "stddev": s.stdev_ns * S, "median": s.median_ns * S,
        # per run, as hyperfine: a process's CPU time shared over the repetitions it ran
        "user": _per_repetition([p.user_ns for p in ok], len(verified)),
        "system": _per_repetition([p.sys_ns for p in ok], len(verified)),
        "min": s.min_ns * S, "max": s.max_ns * S, "times": _seconds(times),
        "exit_codes": [p.exit_code for p in timed],
        "parameters": {k: str(v) for k, v in case.params.items()} if case.workload == "exec" else {},
        # parbench's own
        "case": _case(case),
        "status": run.status,
        "median_ci": _seconds(s.median_ci_ns),
        "p99": s.p99_ns * S, "ips": s.ips, "items_per_second": s.items_per_s,
        "outliers": {"low": s.outliers_low, "high": s.outliers_high},
        "cpu_utilisation": s.cpu_utilisation,
        "memory": {"tree_peak_rss_bytes": (s.peak_rss_kb or 0) * 1024,
                   "largest_process_rss_bytes": (s.largest_process_rss_kb or 0) * 1024,
                   "measured_by": sorted({p.memory.get("memory_method", "ru_maxrss") for p in ok})},
        "verification": {"expected_checksum": run.expected_checksum, "verified": len(verified),
                         "repetitions": len(run.repetitions)},
        "comparisons": {name: _comparison(c) for name, c in (("vs_seq", result.vs_seq),
                                                             ("vs_fastest", result.vs_fastest)) if c},
        "flags": run.flags,
        "processes": [_process(p, run) for p in run.processes],
    }
    return out


def _per_repetition(cpu_ns: list[int], repetitions: int) -> float:
    return float(np.sum(cpu_ns)) / repetitions * S if cpu_ns and repetitions else 0.0


def _case(case: Case) -> dict[str, Any]:
    return {"key": case.key, "workload": case.workload, "runtime": case.runtime, "model": case.model,
            "family": case.family, "params": case.params, "workers": case.workers,
            "overrides": list(case.overrides), "note": case.note}


def _comparison(c) -> dict[str, Any]:
    return {"reference": c.reference, "ratio": c.ratio, "ratio_ci": list(c.ratio_ci),
            "difference": c.difference_ns * S, "significant": c.significant}


def _process(p: ProcessMeasurement, run: CaseRun) -> dict[str, Any]:
    return {**dataclasses.asdict(p), "samples": [dataclasses.asdict(r) for r in run.repetitions
                                                 if r.process == p.index]}


def _failure(result: CaseResult) -> dict[str, Any]:
    run = result.run
    return {"case": _case(result.case), "status": run.status, "reason": run.reason,
            "processes": [_process(p, run) for p in run.processes]}


def document(reports: list[Report]) -> dict[str, Any]:
    runs, results, failures, analyses = [], [], [], []
    for report in reports:
        record = report.record
        runs.append({k: v for k, v in dataclasses.asdict(record).items() if k != "results"})
        for result in record.results:
            (results if result.stats is not None else failures).append(
                {"run": record.id, **(_result(result) if result.stats is not None else _failure(result))})
        analyses += [{"run": record.id, "kind": k, "subject": s, "result": r} for k, s, r in report.analyses]
    return {"schema_version": SCHEMA_VERSION, "generator": "parbench",
            "run": runs[-1] if runs else None, "runs": runs,
            "results": results, "failures": failures, "analyses": analyses}


def render(reports: list[Report]) -> str:
    return json_text(document(reports), indent=1) + "\n"


EXPORTER = Exporter("json", "json", "hyperfine-compatible JSON plus parbench's fields (schema_version 1)", render)


# --- reading an export back -----------------------------------------------------------------
class NotAnExport(ValueError):
    pass


def _records(data: dict) -> dict:
    """The export's runs by id, each field checked (shapes.BadShape names the first wrong one)."""
    records = {}
    for run in shapes.items(data["runs"], "runs"):
        record = shapes.run_record(run, "a run")
        records[record.id] = record
    for entry in shapes.items(data.get("results"), "results") + shapes.items(data.get("failures"), "failures"):
        if not isinstance(entry, dict) or entry.get("run") not in records:
            raise shapes.BadShape("a result of no run in the file")
        fields = entry.get("case")
        fields = {k: v for k, v in fields.items() if k != "key"} if isinstance(fields, dict) else fields
        verification = entry.get("verification") if isinstance(entry.get("verification"), dict) else {}
        run = shapes.case_run(shapes.case(fields, "a case"), entry, "a result", verification.get("expected_checksum", ""))
        for p in shapes.items(entry.get("processes"), "processes"):
            if not isinstance(p, dict):
                raise shapes.BadShape("a process is not an object")
            samples = shapes.items(p.get("samples"), "samples")
            run.processes.append(shapes.process({k: v for k, v in p.items() if k != "samples"}, "a process"))
            run.repetitions += [shapes.repetition(r, "a sample") for r in samples]
        records[entry["run"]].results.append(CaseResult(run))
    return records


def read_analyses(path: Path, run_id: int | None) -> list[tuple[str, str, dict]]:
    """The analyses a JSON export holds for one of its runs (the drift of its sitting…)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError, RecursionError):
        return []
    found = data.get("analyses") if isinstance(data, dict) else None
    return [(a["kind"], a["subject"], a["result"]) for a in found or []
            if isinstance(a, dict) and a.get("run") == run_id and isinstance(a.get("result"), dict)
            and isinstance(a.get("kind"), str) and isinstance(a.get("subject"), str)]


def read(path: Path) -> list[RunRecord]:
    """The runs of a JSON export, with every process and sample, as the store would load them."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError, RecursionError) as error:
        raise NotAnExport(f"{path}: not a readable JSON file ({error})") from None
    if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION or "runs" not in data:
        raise NotAnExport(f"{path}: not a parbench JSON export (schema_version {SCHEMA_VERSION})")
    try:
        records = _records(data)
    except shapes.BadShape as error:
        raise NotAnExport(f"{path}: not a parbench JSON export ({error})") from None
    if not records:
        raise NotAnExport(f"{path}: a parbench JSON export with no run in it")
    return list(records.values())
