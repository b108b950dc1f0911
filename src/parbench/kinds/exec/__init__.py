"""`parbench exec`: any commands measured and compared as hyperfine 1.20 does, with its whole
command line, and parbench's whole-tree memory, bootstrap CIs, output check and store.

Each run is a fresh process tree under the launcher; the commands' runs take turns (interleaved
by default, where hyperfine runs one command's runs after the other's). A run counts when it
exits 0 (or as --ignore-failure allows); whether the output was the same in every run is
reported, and checked only when asked (--expect TEXT, --expect-same), and per parameter set
against a reference (--check CMD, --expect-file FILE). With --fit AXIS the swept parameter is a
worker count, an input size or a unit count, and the run gets the workloads' laws (kinds/exec/fit.py).
"""
from __future__ import annotations

from dataclasses import asdict
from typing import Any

from parbench.analysis.command_sweeps import analyze_commands
from parbench.errors import PipelineError
from parbench.kinds.exec.commands import Command, ExecError, ExecOptions, commands_for, ignored_codes
from parbench.kinds.exec.fit import FitRequest, fit_record, refined, refinement_values
from parbench.kinds.exec.runner import EXEC, ExecRunner, ShellStartup, measure_shell_startup
from parbench.kinds.exec.summary import print_answer, print_exec, print_fits, print_points
from parbench.measure import machine as metadata
from parbench.measure.runner import Settings
from parbench.records import RunRecord, now
from parbench.store.analyzed import load_analyzed

__all__ = ["Command", "ExecError", "ExecKind", "ExecOptions", "commands_for", "settings_for"]

DEFAULT_MIN_RUNS = 10          # hyperfine's
MIN_TIME_S = 3.0               # hyperfine's: keep going until 3 s of runs, unless --runs


def settings_for(runs: int | None, min_runs: int | None, max_runs: int | None, timeout: float,
                 memory_limit_kb: int | None, order: str, seed: int, min_time: float = MIN_TIME_S) -> Settings:
    """hyperfine's rule: `runs` exactly; else at least `min_runs` (10, lowered to --max-runs when
    only that is given) and at least `min_time` (3 s) of runs, at most `max_runs`."""
    if runs is not None:
        low = high = runs
        min_time = 0.0
    else:
        high = max_runs or 1_000_000
        low = min_runs if min_runs is not None else min(DEFAULT_MIN_RUNS, high)
        if not min_time:          # no time to fill: hyperfine runs the minimum
            high = min(high, max(low, 1))
    if high < low:
        raise ExecError("Conflicting requirements for the number of runs (empty range, min is larger than max)")
    return Settings(processes=high, warmup=0, repeat=1, timeout=timeout, budget=None, target_ci=None,
                    memory_limit_kb=memory_limit_kb, order=order, seed=seed, min_processes=low,
                    min_time=min_time)


class ExecKind:
    """`parbench exec`: the commands as cases of one table, measured by ExecRunner."""
    name = EXEC
    of_workloads, resumable = False, False      # commands: no sentinel between them; start again to finish
    live_tables = False          # the answer leads: the points' tables follow it (print_result)

    def __init__(self, options: ExecOptions, settings: Settings, warmup: int, extra_options: dict,
                 time_unit: str | None = None, fit: FitRequest | None = None):
        self.options, self.settings, self.warmup = options, settings, warmup
        self.extra_options, self.time_unit, self.fit = extra_options, time_unit, fit
        # A sweep of a user's commands is a sitting whose law is read off: the drift sentinel is
        # read before and after it, as around a workload's table, so a report says whether the
        # machine changed under it. Plain exec runs nothing of parbench's beside the commands.
        self.of_workloads = fit is not None
        self.commands = commands_for(options)          # ExecError for what hyperfine refuses
        ignored_codes(options.ignore_failure)          # the same for a list of codes that are not numbers

    def configure(self, invocation) -> None:
        """The shell's start-up is measured here, before the first warm-up, out of every run's way."""
        try:
            startup = measure_shell_startup(self.options.shell, self.settings)
        except RuntimeError as error:
            raise PipelineError(str(error), code=1) from None
        invocation.runner = ExecRunner(self.commands, self.options, self.settings, self.warmup, startup)
        invocation.cases = invocation.runner.cases
        invocation.record = RunRecord(id=None, started_at=now(), scale=EXEC, kind=EXEC, machine=metadata.machine(),
                                 runtimes={}, options=self.record_options(startup))
        if self.fit is not None:
            invocation.record.options["fit"] = fit_record(self.fit, self.options, invocation.runner.cases,
                                                          self.commands)

    def record_options(self, startup: ShellStartup) -> dict[str, Any]:
        return {**asdict(self.options), **self.extra_options, "shell_startup": asdict(startup)}

    def rounds(self, invocation):
        """The commands; then, for a size fit, up to `refine` bisection rounds: each command at
        the geometric middle of every bracket where its ratio to the first command crosses 1."""
        yield invocation.cases
        for _ in range(self.fit.refine if self.fit is not None and self.fit.axis == "size" else 0):
            values = refinement_values(analyze_commands(load_analyzed(invocation.store, invocation.record.id)))
            if not values:
                return
            yield invocation.runner.add(commands_for(refined(self.options, self.fit.param, values)))

    def analyses(self, record) -> list:
        return analyze_commands(record) if self.fit is not None else []

    def print_result(self, invocation) -> None:
        if self.extra_options.get("style") == "none":       # hyperfine's --style none: no report at all
            return
        reference = invocation.runner.cases[0].key if self.options.reference is not None else None
        if self.fit is not None:          # the answer first: best worker count, serial fraction, crossover
            print_answer(invocation.analyses, invocation.output.console)
        print_exec(invocation.record, invocation.output.console, reference, self.time_unit,
                   by_command=self.options.sort == "command")
        if self.fit is not None:
            print_points(invocation.record, invocation.analyses, invocation.output.console,
                         verbose=bool(self.extra_options.get("verbose")))
            print_fits(invocation.analyses, invocation.output.console)
