"""`parbench exec`: any command measured like hyperfine does, with parbench's statistics and store.

Every run is a fresh process (wait4: wall, CPU, peak RSS). parbench cannot know a command's
right answer, so its "checksum" is the SHA-256 of what it prints: a run counts only if it
exits 0 and prints the same as the first run (or --expect); a command whose output changes
run to run is flagged rather than averaged in silently.
"""
from __future__ import annotations

import hashlib
import shlex

from rich.console import Console

from parbench import suite
from parbench.analyze import analyze
from parbench.process import run_measured
from parbench.records import Case, CaseRun, ProcessMeasurement, Repetition, RunRecord
from parbench.run import STDERR_TAIL
from parbench import metadata


class ExecError(ValueError):
    pass


def commands_for(command: list[str], param_list) -> list[tuple[str, list[str]]]:
    """(label, argv) per param value; one argument is a shell line, several are an argv."""
    values = [None]
    if param_list:
        name, csv = param_list
        values = csv.split(",")
        if not any(f"{{{name}}}" in part for part in command):
            raise ExecError(f"--param-list {name}: the command has no {{{name}}} to substitute")
    out = []
    for value in values:
        parts = [p.replace(f"{{{param_list[0]}}}", value) for p in command] if value is not None else list(command)
        argv = ["sh", "-c", parts[0]] if len(parts) == 1 else parts
        out.append((parts[0] if len(parts) == 1 else shlex.join(parts), argv))
    return out


def run(command, param_list, warmup, runs, timeout, expect, output_varies, store, console: Console) -> RunRecord:
    options = {"command": list(command), "param_list": list(param_list or []), "warmup": warmup,
               "runs": runs, "timeout": timeout, "expect": expect}
    record = RunRecord(id=None, started_at=suite.now(), scale="exec", options=options,
                       machine=metadata.machine(), runtimes={}, kind="exec")
    store.begin_run(record)
    outcomes = []
    status = "complete"
    try:
        for label, argv in commands_for(command, param_list):
            case = Case("exec", "exec", label, "command", {})
            outcome = _measure(case, argv, warmup, runs, timeout, expect, output_varies, console)
            store.add_case(record.id, outcome)
            outcomes.append(outcome)
            if outcome.status != "ok":
                status = "failed"
    except KeyboardInterrupt:
        status = "interrupted"
    store.finish_run(record.id, status, suite.now())
    record.status = status
    record.results = analyze(outcomes)
    return record


def _measure(case, argv, warmup, runs, timeout, expect, output_varies, console) -> CaseRun:
    outcome = CaseRun(case, expected_checksum="")
    reference = None
    console.print(f"measuring {case.model!r}: {warmup} warm-up + {runs} runs", highlight=False)
    for index in range(warmup + runs):
        finished = run_measured(argv, timeout, protocol=False)
        digest = finished.stdout_digest[:16]
        if expect is not None:
            reference = hashlib.sha256((expect + "\n").encode()).hexdigest()[:16]
            ok_output = finished.stdout_head.strip() == expect.strip()
        else:
            reference = reference or digest
            ok_output = output_varies or digest == reference
        outcome.expected_checksum = reference or ""
        problem = ("timeout" if finished.timed_out else
                   "crash" if finished.exit_code != 0 else
                   "wrong-checksum" if not ok_output else "ok")
        if index < warmup and problem == "ok":
            continue
        measurement = ProcessMeasurement(
            index - warmup, finished.wall_ns, finished.user_ns, finished.sys_ns, finished.max_rss_kb,
            finished.voluntary_switches, finished.involuntary_switches, finished.exit_code, problem,
            detail={"timeout": f"killed after {timeout:g} s", "ok": "",
                    "crash": f"exit {finished.exit_code}",
                    "wrong-checksum": "its output differs from the first run's (--output-varies accepts that)"
                    if expect is None else "its output is not --expect"}[problem],
            stderr_tail=finished.stderr[-STDERR_TAIL:], tree_peak_rss_kb=finished.tree_peak_rss_kb,
            memory=finished.memory)
        outcome.processes.append(measurement)
        if problem != "ok":
            outcome.fail(problem, measurement.detail)
            break
        outcome.repetitions.append(Repetition(index - warmup, 0, finished.wall_ns, 1, digest, True))
    return outcome
