"""Stage 2: runs each case in several fresh processes and verifies every repetition.

A case's timing counts only if (a) the model first gave the oracle's answer on the workload's
verification input (the Benchmarks Game's "verify first") and (b) each timed repetition's
checksum equals the oracle's for the case itself. Failures are results: they are recorded
with their reason and stderr tail, and the suite goes on.
"""
from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from parbench import prepare
from parbench.process import Finished, run_measured
from parbench.protocol import EXIT_BAD_ARGUMENTS, EXIT_LIMIT, command_line, parse_stdout
from parbench.records import Case, CaseRun, ProcessMeasurement, Repetition
from parbench.runtimes import Runtime
from parbench.workloads import Workload

STDERR_TAIL = 2000


@dataclass
class Settings:
    processes: int
    warmup: int
    repeat: int
    timeout: float
    verify_first: bool = True
    budget: float | None = None    # seconds a case may take before it stops at MIN_PROCESSES


MIN_PROCESSES = 2     # never fewer than two fresh processes: the variance between them is the point


class Runner:
    """Runs cases; remembers which (runtime, workload, model) already passed verification."""

    def __init__(self, runtimes: dict[str, Runtime], workloads: dict[str, Workload], settings: Settings):
        self.runtimes, self.workloads, self.settings = runtimes, workloads, settings
        self._verified: dict[tuple, ProcessMeasurement | None] = {}

    def run_case(self, case: Case, on_process: Callable[[int], None] = lambda i: None) -> CaseRun:
        workload = self.workloads.get(case.workload)
        expected = prepare.expected_checksum(case.workload, case.params)
        outcome = CaseRun(case, expected)
        if self.settings.verify_first and workload is not None:
            failed = self._verify(case, workload)
            if failed is not None:
                outcome.processes.append(failed)
                outcome.fail(failed.outcome, f"on the verification input, before timing: {failed.detail}")
                return outcome
        one_rep = workload is not None and workload.one_repetition_per_process
        warmup, repeat = (0, 1) if one_rep else (self.settings.warmup, self.settings.repeat)
        spent = 0.0
        for index in range(self.settings.processes):
            if (self.settings.budget is not None and index >= MIN_PROCESSES
                    and spent * (index + 1) / index > self.settings.budget):
                outcome.flags["processes_cut_by_budget"] = f"{index} of {self.settings.processes}"
                break       # Benchee's time budget: a slow case stops early, with a note
            on_process(index)
            measurement, reps = self._one_process(case, index, expected, warmup, repeat)
            spent += measurement.wall_ns / 1e9
            outcome.processes.append(measurement)
            outcome.repetitions += reps
            for rep in reps:
                outcome.flags.update({k: v for k, v in rep.extra.items() if k.endswith("flags") or k == "workers"})
            if measurement.outcome != "ok":
                outcome.fail(measurement.outcome, measurement.detail)
                break     # a limit, crash or wrong answer will not mend itself in the next process
        return outcome

    def _verify(self, case: Case, workload: Workload) -> ProcessMeasurement | None:
        """The first failing process on the workload's verification inputs, or None if all agree
        with the oracle. Kept (index -1) with the case so its stderr tail is not lost."""
        key = (case.runtime, case.workload, case.model)
        if key not in self._verified:
            self._verified[key] = None
            for params in workload.verify_sets():
                params = {**params, **{k: v for k, v in case.params.items() if k not in workload.params}}
                probe = Case(case.workload, case.runtime, case.model, case.family, params, case.workers)
                expected = prepare.expected_checksum(case.workload, params)
                measurement, _ = self._one_process(probe, -1, expected, 0, 1)
                if measurement.outcome != "ok":
                    measurement.detail = f"{_brief(params)}: {measurement.detail}"
                    self._verified[key] = measurement
                    break
        return self._verified[key]

    def _one_process(self, case: Case, index: int, expected: str, warmup: int, repeat: int
                     ) -> tuple[ProcessMeasurement, list[Repetition]]:
        runtime = self.runtimes[case.runtime]
        scratch = Path(tempfile.mkdtemp(prefix="parbench-"))
        try:
            params, recheck = prepare.process_arguments(case.workload, case.params, scratch)
            argv = command_line(str(runtime.run_script), case.workload, case.model, params,
                                case.workers, warmup, repeat)
            try:
                finished = run_measured(argv, self.settings.timeout)
            except (OSError, RuntimeError) as error:
                # The machine itself said no (no threads or processes left, say, while an
                # earlier case's thousands of threads are still being reaped): a result too.
                return ProcessMeasurement(index, 0, 0, 0, 0, 0, 0, None, "harness-error",
                                          f"could not start the process: {error}"), []
            return judge(finished, index, expected, recheck, self.settings.timeout)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


def judge(finished: Finished, index: int, expected: str, recheck, timeout: float
          ) -> tuple[ProcessMeasurement, list[Repetition]]:
    """The verdict on one process: its measurement and the repetitions that count."""
    measurement = ProcessMeasurement(
        index, finished.wall_ns, finished.user_ns, finished.sys_ns, finished.max_rss_kb,
        finished.voluntary_switches, finished.involuntary_switches, finished.exit_code,
        "ok", stderr_tail=finished.stderr[-STDERR_TAIL:])
    reply = parse_stdout(finished.stdout)
    reps = [Repetition(index, r["rep"], r["ns"], r["items"], r["checksum"], r["checksum"] == expected,
                       r.get("extra", {})) for r in reply.repetitions]

    def verdict(outcome: str, detail: str):
        measurement.outcome, measurement.detail = outcome, detail
        return measurement, reps

    if finished.timed_out:
        return verdict("timeout", f"killed after the {timeout:g} s timeout")
    if finished.exit_code == EXIT_LIMIT or reply.limit is not None:
        return verdict("limit", reply.limit or _last_line(finished.stderr) or "exit 3 without detail")
    if finished.exit_code == EXIT_BAD_ARGUMENTS:
        return verdict("bad-arguments", _last_line(finished.stderr) or "exit 2")
    if finished.exit_code != 0:
        how = f"killed by signal {finished.signal}" if finished.signal else f"exit {finished.exit_code}"
        return verdict("crash", f"{how}: {_last_line(finished.stderr)}")
    if reply.malformed:
        return verdict("bad-output", reply.malformed)
    if not reps:
        return verdict("bad-output", "no repetition was reported")
    wrong = [r for r in reps if not r.verified]
    if wrong:
        return verdict("wrong-checksum", f"checksum {wrong[0].checksum!r}, expected {expected!r}")
    if recheck is not None:
        found = recheck()
        if found != expected:
            for r in reps:
                r.verified = False
            return verdict("wrong-checksum", f"database digest {found}, expected {expected}")
    return measurement, reps


def _last_line(text: str) -> str:
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1][:300] if lines else ""


def _brief(params: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in params.items())
