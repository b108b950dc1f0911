"""The JSON export: hyperfine's field names for what hyperfine has (results[].command, mean,
stddev, median, user, system, min, max, times, exit_codes, parameters; times in seconds), and
parbench's own fields beside them (the case, its CI, memory of the whole tree, verification,
each process, the comparisons, the analyses). Versioned by `schema_version`; the JSON Schema is
schemas/parbench-export.schema.json. `read` turns an export back into runs (compare of files)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from parbench import targets
from parbench.analysis.results import plain, typed
from parbench.escaping import json_text
from parbench.export.base import Exporter, Report
from parbench.export.summary_row import S, summary
from parbench.records import Analysis, CaseResult, CaseRun, ProcessMeasurement, RunRecord
from parbench.report.rows import check_mark
from parbench.store import codec
from parbench.workloads import PROVEN

SCHEMA_VERSION = 1


def _proof(case) -> str:
    """"checksum": the oracle's answer proves the work; else what it proves instead ("form
    checked": only its form; "units unverified": not its units)."""
    mark = check_mark(case)
    return "checksum" if mark == PROVEN else mark


def _result(result: CaseResult) -> dict[str, Any]:
    case, run, s, row = result.case, result.run, result.stats, summary(result)
    timed = [p for p in run.processes if p.index >= 0]
    ok = [p for p in timed if p.outcome == "ok"]
    out: dict[str, Any] = {
        # hyperfine's fields, in hyperfine's order
        "command": row.command, "mean": row.mean, "stddev": row.stddev, "median": row.median,
        "user": row.user, "system": row.system, "min": row.min, "max": row.max, "times": list(row.times),
        # the whole process tree's peak (hyperfine's is the largest single process's)
        "memory_usage_byte": list(row.memory_usage_byte),
        "exit_codes": [p.exit_code for p in timed],
        # hyperfine omits `parameters` when a command has none
        **({"parameters": {k: str(v) for k, v in case.params.items()}}
           if case.workload == "exec" and case.params else {}),
        # parbench's own
        "case": codec.case_dict(case),
        "status": run.status,
        "median_ci": list(row.median_ci),
        "p99": s.p99_ns * S, "ips": s.ips, "items_per_second": s.items_per_s,
        "outliers": {"low": s.outliers_low, "high": s.outliers_high},
        "cpu_utilisation": s.cpu_utilisation,
        # protocol 4: how its processes reached the timed repetitions (docs/methodology.md)
        "steady_state": {"class": s.steady_class, "first": _seconds(s.first_median_ns),
                         "warmup_repetitions": s.warmup_reps_median, "warmup": _seconds(s.warmup_median_ns)},
        "memory": {"tree_peak_rss_bytes": row.tree_peak_rss_bytes,
                   "largest_process_rss_bytes": row.largest_process_rss_bytes,
                   "measured_by": sorted({p.memory.get("memory_method", "ru_maxrss") for p in ok})},
        "verification": {"expected_checksum": run.expected_checksum, "verified": row.verified,
                         "repetitions": row.repetitions,
                         "proof": _proof(run.case)},
        "comparisons": {name: _comparison(c) for name, c in (("vs_seq", result.vs_seq),
                                                             ("vs_fastest", result.vs_fastest)) if c},
        "flags": run.flags,
        "processes": [_process(p, run) for p in run.processes],
    }
    return out


def _seconds(ns: float | None) -> float | None:
    return None if ns is None else ns * S


def _comparison(c) -> dict[str, Any]:
    return {"reference": c.reference, "ratio": c.ratio, "ratio_ci": list(c.ratio_ci),
            "difference": c.difference_ns * S, "significant": c.significant}


def _process(p: ProcessMeasurement, run: CaseRun) -> dict[str, Any]:
    return codec.process_dict(p, [r for r in run.repetitions if r.process == p.index])


def _failure(result: CaseResult) -> dict[str, Any]:
    run = result.run
    return {"case": codec.case_dict(result.case), "status": run.status, "reason": run.reason,
            "processes": [_process(p, run) for p in run.processes]}


def document(reports: list[Report]) -> dict[str, Any]:
    runs, results, failures, analyses = [], [], [], []
    for report in reports:
        record = report.record
        runs.append(codec.run_header(record))
        for result in record.results:
            (results if result.stats is not None else failures).append(
                {"run": record.id, **(_result(result) if result.stats is not None else _failure(result))})
        analyses += [{"run": record.id, "kind": k, "subject": s, "result": plain(r)} for k, s, r in report.analyses]
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
    """The export's runs by id, each field checked (codec.BadShape names the first wrong one)."""
    records = {}
    for run in codec.items(data["runs"], "runs"):
        record = codec.run_record(run, "a run")
        records[record.id] = record
    for entry in codec.items(data.get("results"), "results") + codec.items(data.get("failures"), "failures"):
        if not isinstance(entry, dict) or entry.get("run") not in records:
            raise codec.BadShape("a result of no run in the file")
        fields = entry.get("case")
        fields = {k: v for k, v in fields.items() if k != "key"} if isinstance(fields, dict) else fields
        verification = entry.get("verification") if isinstance(entry.get("verification"), dict) else {}
        run = codec.case_run(codec.case(fields, "a case"), entry, "a result", verification.get("expected_checksum", ""))
        for p in codec.items(entry.get("processes"), "processes"):
            if not isinstance(p, dict):
                raise codec.BadShape("a process is not an object")
            samples = codec.items(p.get("samples"), "samples")
            run.processes.append(codec.process({k: v for k, v in p.items() if k != "samples"}, "a process"))
            run.repetitions += [codec.repetition(r, "a sample") for r in samples]
        records[entry["run"]].results.append(CaseResult(codec.times_checked(run, "a result")))
    return records


def read_analyses(path: Path, run_id: int | None) -> list[Analysis]:
    """The analyses a JSON export holds for one of its runs (the drift of its sitting…), typed."""
    try:
        data = json.loads(targets.read_bounded(path, targets.RECORDS_LIMIT))
    except (OSError, ValueError, RecursionError):
        return []
    found = data.get("analyses") if isinstance(data, dict) else None
    return [typed((a["kind"], a["subject"], a["result"])) for a in found or []
            if isinstance(a, dict) and a.get("run") == run_id and isinstance(a.get("result"), dict)
            and isinstance(a.get("kind"), str) and isinstance(a.get("subject"), str)]


def read(path: Path) -> list[RunRecord]:
    """The runs of a JSON export, with every process and sample, as the store would load them."""
    try:
        data = json.loads(targets.read_bounded(path, targets.RECORDS_LIMIT))
    except (OSError, ValueError, RecursionError) as error:
        raise NotAnExport(f"{path}: not a readable JSON file ({error})") from None
    if not isinstance(data, dict) or data.get("schema_version") != SCHEMA_VERSION or "runs" not in data:
        raise NotAnExport(f"{path}: not a parbench JSON export (schema_version {SCHEMA_VERSION})")
    try:
        records = _records(data)
    except codec.BadShape as error:
        raise NotAnExport(f"{path}: not a parbench JSON export ({error})") from None
    if not records:
        raise NotAnExport(f"{path}: a parbench JSON export with no run in it")
    return list(records.values())
