"""`parbench exec`: any commands measured and compared like hyperfine does, with parbench's
verification, whole-tree memory, bootstrap CIs and store.

Each run is a fresh process tree under the launcher. parbench cannot know a command's right
answer, so its "checksum" is the SHA-256 of what it prints: a run counts only if it exits 0
(or --ignore-failure) and prints what the command's first run printed (or --expect); a command
whose output changes run to run is flagged rather than averaged in silently (--output-varies
accepts it). The commands' runs take turns like `run`'s cases (interleaved by default).
"""
from __future__ import annotations

import hashlib
import itertools
import re
import shlex
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from parbench.process import run_measured
from parbench.records import Case, ProcessMeasurement, Repetition
from parbench.run import STDERR_TAIL, Settings

EXEC = "exec"


class ExecError(ValueError):
    pass


@dataclass
class ExecOptions:
    commands: list[str]
    names: list[str] = field(default_factory=list)
    parameter_lists: list[tuple[str, list[str]]] = field(default_factory=list)
    parameter_scan: tuple[str, str, str] | None = None
    step: str | None = None
    shell: str = "sh"                     # "none": split the command and run it without a shell
    prepare: list[str] = field(default_factory=list)
    setup: str | None = None
    cleanup: str | None = None
    conclude: str | None = None
    ignore_failure: bool = False
    show_output: bool = False
    expect: str | None = None
    output_varies: bool = False
    reference: str | None = None


@dataclass(frozen=True)
class Command:
    label: str                            # what tables show: its name, or the command as written
    display: str                          # the command with its values, as a person would type it
    argv: tuple[str, ...]
    parameters: tuple[tuple[str, str], ...] = ()
    position: int = 0                     # which of the given commands (for --prepare's pairing)


def parameter_sets(options: ExecOptions) -> list[dict[str, str]]:
    """Every combination of -L lists and the -P scan (hyperfine's cartesian product)."""
    axes = [(name, values) for name, values in options.parameter_lists]
    if options.parameter_scan:
        name, low, high = options.parameter_scan
        axes.append((name, _scan(name, low, high, options.step)))
    names = [name for name, _ in axes]
    if len(set(names)) != len(names):
        raise ExecError(f"a parameter is given twice: {', '.join(names)}")
    return [dict(zip(names, combo)) for combo in itertools.product(*(values for _, values in axes))] or [{}]


def _scan(name: str, low: str, high: str, step: str | None) -> list[str]:
    try:
        first, last = Decimal(low), Decimal(high)
        by = Decimal(step) if step is not None else Decimal(1)
    except ArithmeticError:
        raise ExecError(f"--parameter-scan {name}: {low} … {high} (step {step or 1}) are not numbers") from None
    if not all(v.is_finite() for v in (first, last, by)):
        raise ExecError(f"--parameter-scan {name}: {low} … {high} (step {step or 1}) must be finite numbers")
    if by <= 0 or last < first:
        raise ExecError(f"--parameter-scan {name}: needs MIN ≤ MAX and a positive step, got {low} … {high} "
                        f"step {step or 1}")
    if (last - first) / by > 10_000:
        raise ExecError(f"--parameter-scan {name}: more than 10,000 values")
    values, value = [], first
    while value <= last:
        values.append(format(value.normalize(), "f") if value != value.to_integral() else str(int(value)))
        value += by
    return values


def _substitute(template: str, parameters: dict[str, str], quote) -> str:
    """Every {name} replaced in one pass (a value holding `{other}` stays as it is). With
    `shlex.quote`, each value is quoted for where it stands: bare, inside '…' or inside "…", so
    `echo "{x}"` with x = `$(touch PWN)` prints the value and runs nothing."""
    if not parameters:
        return template
    pattern = re.compile("|".join(re.escape(f"{{{name}}}") for name in parameters))
    if quote is not shlex.quote:
        return pattern.sub(lambda m: quote(parameters[m.group()[1:-1]]), template)
    return pattern.sub(lambda m: _SHELL_QUOTERS[_quoting_at(template, m.start())](parameters[m.group()[1:-1]]),
                       template)


# How a value is made literal where it stands in a POSIX shell command.
_SHELL_QUOTERS = {
    "bare": shlex.quote,
    "single": lambda value: value.replace("'", "'\\''"),                 # close, escaped quote, reopen
    "double": lambda value: re.sub(r'([\\$`"])', r"\\\1", value),        # the four specials of "…"
}


def _quoting_at(template: str, position: int) -> str:
    """Whether `position` of a shell command is bare, inside single or inside double quotes."""
    state, index = "bare", 0
    while index < position:
        char = template[index]
        if char == "\\" and state != "single":
            index += 2
            continue
        if state == "bare" and char in "'\"":
            state = "single" if char == "'" else "double"
        elif (state, char) in (("single", "'"), ("double", '"')):
            state = "bare"
        index += 1
    return state


def _refuse_nul(options: ExecOptions) -> None:
    """No argv can hold a NUL byte (the kernel ends a string there): one line instead of Python's
    ValueError from deep in the scheduler."""
    texts = [*options.commands, *options.names, *options.prepare, options.setup, options.cleanup, options.conclude,
             options.shell, *(v for _, values in options.parameter_lists for v in values), *(options.parameter_scan or ())]
    if any("\x00" in text for text in texts if text):
        raise ExecError("a command, a name or a value holds a NUL byte, which no command line can carry")


def commands_for(options: ExecOptions) -> list[Command]:
    """One Command per given command and parameter combination. In shell mode every value is
    shell-quoted where it is substituted, so no value a user passes is run as shell syntax;
    -N (--shell=none) splits the command into an argv first and runs no shell at all."""
    _refuse_nul(options)
    sets = parameter_sets(options)
    for name in (n for s in sets[:1] for n in s):
        if not any(f"{{{name}}}" in c for c in options.commands):
            raise ExecError(f"parameter {name}: the command has no {{{name}}} to substitute")
    if options.names and len(options.names) != len(options.commands):
        raise ExecError(f"--command-name was given {len(options.names)} times for {len(options.commands)} commands")
    out: list[Command] = []
    for position, template in enumerate(options.commands):
        for parameters in sets:
            display = _substitute(template, parameters, str)
            if options.shell == "none":
                try:
                    argv = tuple(_substitute(part, parameters, str) for part in shlex.split(template))
                except ValueError as error:
                    raise ExecError(f"cannot split {template!r} without a shell: {error}") from None
                if not argv:
                    raise ExecError("an empty command")
            else:
                argv = (options.shell, "-c", _substitute(template, parameters, shlex.quote))
            name = _substitute(options.names[position], parameters, str) if options.names else display
            out.append(Command(name, display, argv, tuple(parameters.items()), position))
    labels = [c.label for c in out]
    return [Command(f"{c.label} #{i + 1}" if labels.count(c.label) > 1 else c.label, c.display, c.argv,
                    c.parameters, c.position) for i, c in enumerate(out)]


def case_of(command: Command) -> Case:
    return Case(EXEC, EXEC, command.label, "command", dict(command.parameters),
                note=command.display if command.display != command.label else "")


class ExecRunner:
    """The scheduler's runner for commands: warm-ups and --setup before a command's first timed
    run, --prepare / --conclude around each run, --cleanup once its runs are done."""
    workloads: dict = {}          # commands are no workload: no inputs, no oracle

    def __init__(self, commands: list[Command], options: ExecOptions, settings: Settings, warmup: int,
                 echo=None):
        self.cases = [case_of(c) for c in commands]
        self.commands = {case.key: command for case, command in zip(self.cases, commands)}
        self.options, self.settings, self.warmup, self.echo = options, settings, warmup, echo
        self.reference: dict[str, str] = {}      # case key → the digest of its first run's output
        self.cleaned: set[str] = set()

    def expected(self, case: Case) -> str:
        return _digest_of_text(self.options.expect) if self.options.expect is not None else ""

    def repetitions_per_process(self, case: Case) -> tuple[int, int]:
        return 0, 1

    def verify(self, case: Case) -> ProcessMeasurement | None:
        """--setup, then the warm-up runs (untimed; the first one fixes the reference output)."""
        command = self.commands[case.key]
        if self.options.setup:
            failed = self._helper(self.options.setup, command, "setup")
            if failed:
                return failed
        for index in range(self.warmup):
            measurement, _ = self.one_process(case, -1 - index, 0, 1, warm_up=True)
            if measurement.outcome != "ok":
                measurement.detail = f"in a warm-up run: {measurement.detail}"
                return measurement
        return None

    def one_process(self, case: Case, index: int, warmup: int, repeat: int,
                    warm_up: bool = False) -> tuple[ProcessMeasurement, list[Repetition]]:
        command = self.commands[case.key]
        prepare = self._prepare_for(command)
        if prepare:
            failed = self._helper(prepare, command, "prepare")
            if failed:
                return failed, []
        finished = run_measured(list(command.argv), self.settings.timeout, self.settings.memory_limit_kb,
                                protocol=False, echo_stdout=self.echo if self.options.show_output else None)
        if self.options.conclude:
            self._helper(self.options.conclude, command, "conclude")
        digest = finished.stdout_digest[:16]
        outcome, detail = self._verdict(case, finished, digest)
        measurement = ProcessMeasurement(
            index, finished.wall_ns, finished.user_ns, finished.sys_ns, finished.max_rss_kb,
            finished.voluntary_switches, finished.involuntary_switches, finished.exit_code, outcome, detail,
            finished.stderr[-STDERR_TAIL:], finished.tree_peak_rss_kb, finished.memory)
        reps = [] if warm_up else [Repetition(index, 0, finished.wall_ns, 1, digest, outcome == "ok",
                                              {"exit_code": finished.exit_code})]
        return measurement, reps

    def _verdict(self, case: Case, finished, digest: str) -> tuple[str, str]:
        if finished.out_of_memory:
            return "limit", "out of memory (the case's memory limit)"
        if finished.timed_out:
            return "timeout", f"killed after {self.settings.timeout:g} s"
        if finished.exit_code != 0 and not self.options.ignore_failure:
            how = f"killed by signal {finished.signal}" if finished.signal else f"exit {finished.exit_code}"
            return "crash", f"{how} (--ignore-failure accepts it)"
        if self.options.expect is not None:
            if finished.stdout_head.strip() != self.options.expect.strip():
                return "wrong-checksum", "its output is not --expect"
        elif not self.options.output_varies:
            reference = self.reference.setdefault(case.key, digest)
            if digest != reference:
                return "wrong-checksum", "its output differs from the first run's (--output-varies accepts that)"
        return "ok", ""

    def _prepare_for(self, command: Command) -> str | None:
        prepare = self.options.prepare
        if not prepare:
            return None
        return prepare[command.position] if len(prepare) > 1 else prepare[0]

    def _helper(self, template: str, command: Command, what: str) -> ProcessMeasurement | None:
        """A --prepare / --setup / --cleanup / --conclude command, with the run's parameters; its
        failure is the case's failure (hyperfine stops there too)."""
        argv = [self.options.shell if self.options.shell != "none" else "sh", "-c",
                _substitute(template, dict(command.parameters), shlex.quote)]
        finished = run_measured(argv, self.settings.timeout, self.settings.memory_limit_kb, protocol=False)
        if finished.exit_code == 0:
            return None
        return ProcessMeasurement(-1, finished.wall_ns, finished.user_ns, finished.sys_ns, finished.max_rss_kb,
                                  0, 0, finished.exit_code, "crash",
                                  f"--{what} command failed (exit {finished.exit_code}): {template}",
                                  finished.stderr[-STDERR_TAIL:])

    def group_finished(self, cases: list[Case]) -> None:
        """--cleanup once per command, after all its runs."""
        if not self.options.cleanup:
            return
        for case in cases:
            if case.key not in self.cleaned:
                self.cleaned.add(case.key)
                self._helper(self.options.cleanup, self.commands[case.key], "cleanup")


def _digest_of_text(text: str) -> str:
    return hashlib.sha256((text + "\n").encode()).hexdigest()[:16]


def settings_for(runs: int | None, min_runs: int | None, max_runs: int | None, timeout: float,
                 memory_limit_kb: int | None, order: str, seed: int) -> Settings:
    """hyperfine's rule: `runs` exactly, else at least `min_runs` (10) and at least 3 s, at most
    `max_runs`."""
    if runs is not None:
        low = high = runs
        min_time = 0.0
    else:
        low, high, min_time = (min_runs or 10), (max_runs or 1_000_000), 3.0
    if high < low:
        raise ExecError(f"--max-runs ({high}) is below --min-runs ({low})")
    return Settings(processes=high, warmup=0, repeat=1, timeout=timeout, budget=None, target_ci=None,
                    memory_limit_kb=memory_limit_kb, order=order, seed=seed, min_processes=low,
                    min_time=min_time)


def options_record(options: ExecOptions, extra: dict[str, Any]) -> dict[str, Any]:
    from dataclasses import asdict
    return {**asdict(options), **extra}


class ExecKind:
    """`parbench exec`: the commands as cases of one table, measured by ExecRunner."""
    name = "exec"

    def __init__(self, options: ExecOptions, settings: Settings, warmup: int, extra_options: dict,
                 time_unit: str | None = None):
        self.options, self.settings, self.warmup = options, settings, warmup
        self.extra_options, self.time_unit = extra_options, time_unit
        self.commands = commands_for(options)          # ExecError for what cannot be run

    def configure(self, suite) -> None:
        import sys
        from parbench import metadata
        from parbench.records import RunRecord
        from parbench.suite import now
        suite.runner = ExecRunner(self.commands, self.options, self.settings, self.warmup,
                                  echo=lambda chunk: sys.stdout.buffer.write(chunk))
        suite.cases = suite.runner.cases
        suite.record = RunRecord(id=None, started_at=now(), scale=EXEC, kind=EXEC, machine=metadata.machine(),
                                 runtimes={}, options=options_record(self.options, self.extra_options))

    def rounds(self, suite):
        yield suite.cases

    def analyses(self, record) -> list:
        return []

    def print_result(self, suite) -> None:
        from parbench.report.exec_summary import print_exec
        reference = None
        if self.options.reference is not None:
            reference = next((c.label for c in self.commands
                              if self.options.reference in (c.display, c.label)), None)
        print_exec(suite.record, suite.output.console, reference_label=reference, unit=self.time_unit)
