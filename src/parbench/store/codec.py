"""The one codec of runs and cases, records ⇄ plain dicts, that the journal (store/sink.py) and
the JSON export write and read back; reading checks that every field has the type the store and
the statistics rely on, so a malformed file is one line naming the field, never a traceback."""
from __future__ import annotations

import dataclasses
import math
from typing import Any

from parbench.records import Case, CaseRun, ProcessMeasurement, Repetition, RunRecord

INT64 = (-(1 << 63), (1 << 63) - 1)


# --- records → plain dicts ------------------------------------------------------------------
def run_header(record: RunRecord) -> dict[str, Any]:
    """A run without its results: what a journal line and an export's `runs` carry."""
    return {k: v for k, v in dataclasses.asdict(record).items() if k != "results"}


def case_dict(case_record: Case) -> dict[str, Any]:
    """A case with its key (which reading ignores: it is derived)."""
    return {"key": case_record.key, **dataclasses.asdict(case_record), "overrides": list(case_record.overrides)}


def process_dict(measurement: ProcessMeasurement, samples: list[Repetition] | None = None) -> dict[str, Any]:
    """A process; with `samples`, its repetitions nested in it (the export's shape)."""
    out = dataclasses.asdict(measurement)
    return out if samples is None else {**out, "samples": [dataclasses.asdict(r) for r in samples]}


def case_run_dict(run: CaseRun) -> dict[str, Any]:
    """A whole measured case, processes and repetitions side by side (the journal's shape)."""
    return {"case": case_dict(run.case), "expected_checksum": run.expected_checksum, "status": run.status,
            "reason": run.reason, "flags": run.flags, "processes": [process_dict(p) for p in run.processes],
            "repetitions": [dataclasses.asdict(r) for r in run.repetitions]}


# --- plain dicts → records, checked -----------------------------------------------------------
class BadShape(ValueError):
    """What is wrong with a record read from a file, in one line."""


def _type_ok(value: Any, kind: str) -> bool:
    """kind is a dataclass annotation as text (the records use `from __future__ import annotations`)."""
    options = [k.strip() for k in kind.split("|")]
    for option in options:
        base = option.split("[", 1)[0]
        if base == "None" and value is None:
            return True
        if base == "int" and isinstance(value, int) and not isinstance(value, bool):
            return INT64[0] <= value <= INT64[1]
        if base == "float" and isinstance(value, (int, float)) and not isinstance(value, bool):
            return math.isfinite(value)
        if base == "bool" and isinstance(value, (bool, int)):
            return True
        if base == "str" and isinstance(value, str):
            return True
        if base == "dict" and isinstance(value, dict):
            return True
        if base in ("tuple", "list") and isinstance(value, (list, tuple)):
            return True
        if base == "Any":
            return True
    return False


def checked(record_type: type, data: Any, where: str, **converted: Any):
    """record_type(**data) after every field present is checked against its annotation; fields
    missing from data take their defaults, a missing required one is a BadShape."""
    if not isinstance(data, dict):
        raise BadShape(f"{where}: an object was expected, found {type(data).__name__}")
    values = {}
    for f in dataclasses.fields(record_type):
        if not f.init:
            continue
        if f.name in converted:
            values[f.name] = converted[f.name]
        elif f.name in data:
            if not _type_ok(data[f.name], str(f.type)):
                raise BadShape(f"{where}: {f.name} = {str(data[f.name])[:40]!r} is not {f.type}")
            values[f.name] = data[f.name]
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            raise BadShape(f"{where}: no {f.name}")
    return record_type(**values)


def run_record(data: Any, where: str) -> RunRecord:
    record = checked(RunRecord, data, where, results=[])
    if record.id is not None and not isinstance(record.id, int):
        raise BadShape(f"{where}: id is not a run number")
    return record


def case(data: Any, where: str) -> Case:
    overrides = data.get("overrides", []) if isinstance(data, dict) else []
    if not isinstance(overrides, list) or not all(isinstance(o, str) for o in overrides):
        raise BadShape(f"{where}: overrides is not a list of strings")
    return checked(Case, data, where, overrides=tuple(overrides))


def process(data: Any, where: str) -> ProcessMeasurement:
    return checked(ProcessMeasurement, data, where)


def repetition(data: Any, where: str) -> Repetition:
    return checked(Repetition, data, where)


def case_run(case_record: Case, data: dict, where: str, expected_checksum: Any) -> CaseRun:
    for name, kind in (("status", str), ("reason", str), ("flags", dict)):
        if name in data and not isinstance(data[name], kind):
            raise BadShape(f"{where}: {name} is not a {kind.__name__}")
    if not isinstance(expected_checksum, str):
        raise BadShape(f"{where}: the expected checksum is not text")
    if not isinstance(data.get("status"), str):
        raise BadShape(f"{where}: no status")
    return CaseRun(case_record, expected_checksum, status=data["status"], reason=data.get("reason", ""),
                   flags=data.get("flags", {}))


def items(data: Any, where: str) -> list:
    if not isinstance(data, list):
        raise BadShape(f"{where}: a list was expected, found {type(data).__name__}")
    return data


def case_run_from_dict(data: Any, where: str = "case") -> CaseRun:
    """The inverse of case_run_dict; BadShape naming the first wrong field."""
    if not isinstance(data, dict):
        raise BadShape(f"{where}: the case is not an object")
    run = case_run(case(data.get("case"), f"{where}: case"), data, where, data.get("expected_checksum"))
    run.processes = [process(p, f"{where}: process") for p in items(data.get("processes"), where)]
    run.repetitions = [repetition(r, f"{where}: repetition") for r in items(data.get("repetitions"), where)]
    return times_checked(run, where)


_PROCESS_FIGURES = ("wall_ns", "user_ns", "sys_ns", "max_rss_kb", "tree_peak_rss_kb")


def _zero_is_measured(run: CaseRun, rep: Repetition) -> bool:
    """The one verified time of 0 parbench writes: an exec run whose shell start-up, subtracted
    as hyperfine does, was all of it."""
    startup = rep.extra.get("shell_startup_ns")
    return run.case.workload == "exec" and isinstance(startup, int) and startup > 0


def times_checked(run: CaseRun, where: str) -> CaseRun:
    """A case read from a file, whose figures the statistics would take as measured: no process
    figure below 0, and every verified time positive (noop's: its processes' wall times), but
    for exec's shell-corrected 0. Anything else is a BadShape: the file was not written so."""
    for p in run.processes:
        for name in _PROCESS_FIGURES:
            if getattr(p, name) < 0:
                raise BadShape(f"{where}: {run.case.key}: process {p.index} has {name} = {getattr(p, name)}, below 0")
    for rep in run.repetitions:
        if rep.verified and (rep.ns < 0 or rep.items < 0 or (rep.ns == 0 and run.case.workload != "noop"
                                                              and not _zero_is_measured(run, rep))):
            raise BadShape(f"{where}: {run.case.key}: repetition {rep.rep} of process {rep.process} is verified with "
                           f"ns = {rep.ns}, items = {rep.items}: a verified time is positive")
    if run.case.workload == "noop" and any(p.wall_ns <= 0 for p in run.processes if p.outcome == "ok"):
        raise BadShape(f"{where}: {run.case.key}: a noop process timed at 0 ns")
    return bounds_checked(run, where)


# The harness's own readings of a process's time that a verified repetition carries (the gap
# between its variant and its line; runner._warm_up's first repetition, warm-up included, and
# _before_the_work's warm-ups): each within the process's life, as its ns is.
_WALL_FIGURES = ("gap_ns", "first_ns", "warmup_ns")
# A process prints at most process.MAX_STDOUT_LINES lines: no more warm-ups than that.
_MOST_WARMUPS = 100_000


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _warm_up_checked(run: CaseRun, rep, wall_ns: int, where: str) -> int:
    """The warm-up time a verified repetition says its process spent before it (0 for none),
    once its harness figures are possible: whole numbers, the first repetition positive (a
    noop's may be 0, as its ns), none longer than the process lived, warmup_reps a line count."""
    at = f"{where}: {run.case.key}: repetition {rep.rep} of process {rep.process} has"
    for name in _WALL_FIGURES:
        if name not in rep.extra:
            continue
        value = rep.extra[name]
        least = 1 if name == "first_ns" and run.case.workload != "noop" else 0
        if not _is_int(value):
            raise BadShape(f"{at} {name} = {value!r}, not a whole number of nanoseconds")
        if not least <= value <= wall_ns:
            raise BadShape(f"{at} {name} = {value}, outside {least} … its process's wall_ns = {wall_ns}")
    if "warmup_reps" in rep.extra:
        count = rep.extra["warmup_reps"]
        if not _is_int(count) or not 0 <= count <= _MOST_WARMUPS:
            raise BadShape(f"{at} warmup_reps = {count!r}, not a count of warm-up repetitions (0 … {_MOST_WARMUPS:,})")
    return rep.extra.get("warmup_ns", 0)


def bounds_checked(run: CaseRun, where: str) -> CaseRun:
    """A case whose figures could have been measured: a repetition's time fits in the wall time
    the harness saw its process live (each one, and all of one process's together, as the
    runner's `implausible` demands of a live process), its CPU (exec's) within its process
    tree's, and every verified repetition counts
    the case's one number of items. A file holding more was not written by parbench."""
    walls = {p.index: p.wall_ns for p in run.processes}
    cpus = {p.index: {"user_ns": p.user_ns, "sys_ns": p.sys_ns} for p in run.processes}
    spent: dict[int, int] = {}
    for rep in run.repetitions:
        if rep.process not in walls:
            raise BadShape(f"{where}: {run.case.key}: repetition {rep.rep} names process {rep.process}, "
                           "which the case does not have")
        spent[rep.process] = spent.get(rep.process, 0) + max(rep.ns, 0)
        if rep.ns > walls[rep.process]:
            raise BadShape(f"{where}: {run.case.key}: repetition {rep.rep} of process {rep.process} has "
                           f"ns = {rep.ns}, longer than its process's wall_ns = {walls[rep.process]}")
        for name in ("user_ns", "sys_ns"):        # exec's CPU, the shell's start-up taken off the tree's
            cpu, tree = rep.extra.get(name), cpus[rep.process][name]
            if isinstance(cpu, int) and not isinstance(cpu, bool) and not 0 <= cpu <= tree:
                raise BadShape(f"{where}: {run.case.key}: repetition {rep.rep} of process {rep.process} has "
                               f"{name} = {cpu}, outside its process tree's {name} = {tree}")
        if rep.verified:
            spent[rep.process] += _warm_up_checked(run, rep, walls[rep.process], where)
    for index, total in spent.items():
        if total > walls[index]:
            raise BadShape(f"{where}: {run.case.key}: the repetitions of process {index} add up to ns = {total}, "
                           f"longer than its wall_ns = {walls[index]}")
    counts = sorted({rep.items for rep in run.repetitions if rep.verified})
    if len(counts) > 1:
        raise BadShape(f"{where}: {run.case.key}: verified repetitions count items = {counts[0]} and "
                       f"items = {counts[-1]}: one case has one number of items")
    return run
