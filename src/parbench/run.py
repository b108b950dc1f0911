"""Stage 2a: runs one fresh process of a case and judges what it printed.

A case's timing counts only if (a) the model first gave the oracle's answer on the workload's
verification input (the Benchmarks Game's "verify first") and (b) each timed repetition's
checksum equals the oracle's for the case itself, and (c) the process's numbers are plausible
(the repetitions asked for, times within the process's life, the unit count the plan implies).
Failures are results: they are recorded with their reason and stderr tail, and the suite goes on.
"""
from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parbench.inputs import InputError
from parbench.process import Finished, run_measured
from parbench.protocol import EXIT_BAD_ARGUMENTS, EXIT_LIMIT, command_line, implausible, parse_stdout
from parbench.records import Case, ProcessMeasurement, Repetition
from parbench.runtimes import Runtime
from parbench.units import format_bytes
from parbench.workloads import Workload

STDERR_TAIL = 2000
VERIFY_INDEX = -1       # the process on the verification input is kept with the case as index -1


@dataclass
class Settings:
    processes: int                 # at most this many fresh processes per case
    warmup: int
    repeat: int
    timeout: float
    verify_first: bool = True
    budget: float | None = None    # seconds a case may take before it stops at MIN_PROCESSES
    target_ci: float | None = None   # stop once the median's 95% CI half-width is within this share
    memory_limit_kb: int | None = None
    order: str = "interleaved"     # interleaved | shuffled | sequential
    seed: int = 0                  # for `shuffled`
    min_processes: int = 2         # exec's --min-runs
    min_time: float = 0.0          # exec: keep going until this many seconds (hyperfine's 3 s)


MIN_PROCESSES = 2     # never fewer than two fresh processes: the variance between them is the point


class Runner:
    """Runs processes of cases; remembers which models already passed verification in this run."""

    def __init__(self, runtimes: dict[str, Runtime], workloads: dict[str, Workload], settings: Settings):
        self.runtimes, self.workloads, self.settings = runtimes, workloads, settings
        self._verified: dict[tuple, ProcessMeasurement | None] = {}

    def expected(self, case: Case) -> str:
        return self.workloads[case.workload].expected_checksum(case.params)

    def repetitions_per_process(self, case: Case) -> tuple[int, int]:
        """(warmup, repeat): a workload that rewrites its database runs one repetition a process."""
        if self.workloads[case.workload].one_repetition_per_process:
            return 0, 1
        return self.settings.warmup, self.settings.repeat

    def verify(self, case: Case) -> ProcessMeasurement | None:
        """The first failing process on the workload's verification inputs, or None if all agree
        with the oracle. Shared by every case of the same model and model params in this run."""
        if not self.settings.verify_first:
            return None
        workload = self.workloads[case.workload]
        own = {k: v for k, v in case.params.items() if k not in workload.params}
        key = (case.runtime, case.workload, case.model, tuple(sorted(own.items())))
        if key not in self._verified:
            self._verified[key] = None
            for params in workload.verify_sets():
                probe = Case(case.workload, case.runtime, case.model, case.family, {**params, **own}, case.workers)
                measurement, _ = self.one_process(probe, VERIFY_INDEX, self.expected(probe), 0, 1)
                if measurement.outcome != "ok":
                    measurement.detail = (f"on the verification input, before timing: {_brief(probe.params)}: "
                                          f"{measurement.detail}")
                    self._verified[key] = measurement
                    break
        return self._verified[key]

    def one_process(self, case: Case, index: int, expected: str, warmup: int, repeat: int
                    ) -> tuple[ProcessMeasurement, list[Repetition]]:
        runtime = self.runtimes[case.runtime]
        workload = self.workloads[case.workload]
        scratch = Path(tempfile.mkdtemp(prefix="parbench-"))
        try:
            try:
                params, recheck = workload.process_arguments(case.params, scratch)
            except (InputError, RuntimeError, OSError) as error:
                return _harness_error(index, f"could not prepare the input: {error}"), []
            argv = command_line(str(runtime.run_script), case.workload, case.model, params,
                                case.workers, warmup, repeat)
            try:
                finished = run_measured(argv, self.settings.timeout, self.settings.memory_limit_kb)
            except OSError as error:
                # The machine itself said no (no processes left while an earlier case's thousands
                # of threads are still being reaped, say): a result too.
                return _harness_error(index, f"could not start the process: {error}"), []
            return judge(finished, index, expected, recheck, self.settings.timeout, repeat,
                         workload.expected_items(case.params), workload.items)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


def _harness_error(index: int, detail: str) -> ProcessMeasurement:
    return ProcessMeasurement(index, 0, 0, 0, 0, 0, 0, None, "harness-error", detail)


def judge(finished: Finished, index: int, expected: str, recheck, timeout: float, repeat: int,
          expected_items: int | None, items_unit: str = "items") -> tuple[ProcessMeasurement, list[Repetition]]:
    """The verdict on one process: its measurement and the repetitions that count."""
    measurement = ProcessMeasurement(
        index, finished.wall_ns, finished.user_ns, finished.sys_ns, finished.max_rss_kb,
        finished.voluntary_switches, finished.involuntary_switches, finished.exit_code,
        "ok", stderr_tail=finished.stderr[-STDERR_TAIL:], tree_peak_rss_kb=finished.tree_peak_rss_kb,
        memory=finished.memory)
    reply = parse_stdout(finished.stdout_lines, finished.stdout_times)
    reps = [Repetition(index, r["rep"], r["ns"], r["items"], r["checksum"], r["checksum"] == expected,
                       r.get("extra", {})) for r in reply.repetitions]

    def verdict(outcome: str, detail: str):
        measurement.outcome, measurement.detail = outcome, detail
        for rep in reps:
            rep.verified = rep.verified and outcome == "ok"
        return measurement, reps

    if finished.stdout_problem:
        return verdict("bad-output", finished.stdout_problem)
    if finished.out_of_memory:
        limit = finished.memory.get("memory_limit_kb") or 0
        return verdict("limit", f"out of memory at {format_bytes(1024 * finished.tree_peak_rss_kb)} (the case's "
                                f"memory limit is {format_bytes(1024 * limit)}, enforced by "
                                f"{finished.memory.get('limit_method', '?')})")
    if finished.timed_out:
        return verdict("timeout", f"killed after the {timeout:g} s timeout")
    if reply.limit is not None:
        return verdict("limit", reply.limit)
    if finished.exit_code == EXIT_LIMIT:
        return verdict("crash", "exit 3 without the protocol's limit line ({\"error\":\"limit\",\"detail\":…}): "
                                + (_last_line(finished.stderr) or "no reason given"))
    if finished.exit_code == EXIT_BAD_ARGUMENTS:
        return verdict("bad-arguments", _last_line(finished.stderr) or "exit 2")
    if finished.exit_code != 0:
        how = f"killed by signal {finished.signal}" if finished.signal else f"exit {finished.exit_code}"
        return verdict("crash", f"{how}: {_last_line(finished.stderr)}")
    if reply.malformed:
        return verdict("bad-output", reply.malformed)
    problem = implausible(reply, repeat, expected_items, finished.wall_ns, items_unit,
                          zero_allowed=expected_items == 0 or index < 0)
    if problem:
        return verdict("bad-output", problem)
    wrong = [r for r in reps if not r.verified]
    if wrong:
        return verdict("wrong-checksum", f"checksum {wrong[0].checksum!r}, expected {expected!r}")
    if recheck is not None:
        found = recheck()
        if found != expected:
            return verdict("wrong-checksum", f"database digest {found}, expected {expected}")
    leftover = finished.memory.get("leftover")
    if leftover:
        measurement.detail = f"{leftover} process(es) outlived it and were killed"
    return measurement, reps


def _last_line(text: str) -> str:
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1][:300] if lines else ""


def _brief(params: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in params.items())
