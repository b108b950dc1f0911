"""The scheduler's runner for exec's commands: one fresh process tree per run under the launcher,
hyperfine's helpers around it (--setup, --prepare, --conclude, --cleanup), its shell start-up
subtracted, its exit judged by --ignore-failure and its output by --expect / --expect-same, and
per parameter set by --check / --expect-file, after --prepare-once has made that set's inputs."""
from __future__ import annotations

import hashlib
import os
import shlex
import sys
from dataclasses import dataclass

from parbench.kinds.exec import reference_output
from parbench.kinds.exec.commands import (Command, ExecOptions, argv_for, ignored_codes, own_shell, per_command,
                                          shell_words, substitute)
from parbench.kinds.exec.reference_output import ReferenceOutput
from parbench.measure.process import run_measured
from parbench.measure.runner import STDERR_TAIL, Settings
from parbench.records import Case, ProcessMeasurement, Repetition

EXEC = "exec"
SHELL_CALIBRATION_RUNS = 50          # hyperfine's count of `sh -c ""` runs


@dataclass(frozen=True)
class ShellStartup:
    """What starting the shell costs (the mean of its empty-command runs): subtracted from every
    run's wall, user and system time, as hyperfine does, floored at zero."""
    wall_ns: int = 0
    user_ns: int = 0
    sys_ns: int = 0
    runs: int = 0


def measure_shell_startup(shell: str, settings: Settings) -> ShellStartup:
    """hyperfine's calibration: the shell run with an empty command; none with -N."""
    if shell == "none":
        return ShellStartup()
    argv = [*shell_words(shell), "-c", ""]
    runs = [run_measured(argv, settings.timeout, settings.memory_limit_kb, protocol=False)
            for _ in range(SHELL_CALIBRATION_RUNS)]
    if any(run.exit_code != 0 for run in runs):
        raise RuntimeError(f"Could not measure shell execution time. Make sure you can run '{shlex.join(argv)}'.")
    mean = lambda values: int(sum(values) / len(values))
    return ShellStartup(mean([r.wall_ns for r in runs]), mean([r.user_ns for r in runs]),
                        mean([r.sys_ns for r in runs]), len(runs))


def case_of(command: Command) -> Case:
    return Case(EXEC, EXEC, command.name, "command", dict(command.parameters),
                note=command.display if command.display != command.name else "")


def digest_of_text(text: str) -> str:
    return hashlib.sha256((text + "\n").encode()).hexdigest()[:16]


class ExecRunner:
    """Warm-ups and --setup before a command's first timed run, --prepare / --conclude around
    each run, --cleanup once its runs are done."""
    workloads: dict = {}          # commands are no workload: no inputs, no oracle

    def __init__(self, commands: list[Command], options: ExecOptions, settings: Settings, warmup: int,
                 shell_startup: ShellStartup = ShellStartup()):
        self.cases = unique_cases(commands)
        self.commands = {case.key: command for case, command in zip(self.cases, commands)}
        self.options, self.settings, self.warmup, self.shell_startup = options, settings, warmup, shell_startup
        self.ignored = ignored_codes(options.ignore_failure)
        # The output is read only where a check needs it; else --output=null is /dev/null, unread.
        self.checks_output = (options.expect is not None or options.expect_same or bool(options.check)
                              or bool(options.expect_file))
        self.first_output: dict[str, str] = {}      # case key → the digest of its first run's output
        self.cleaned: set[str] = set()
        # Per parameter set: what --prepare-once or --check made of it (a failure, or the output expected).
        self.points: dict[tuple, ProcessMeasurement | ReferenceOutput | None] = {}
        # Copied once: copying os.environ decodes every variable, ~0.04 ms a run.
        self.environment = dict(os.environ)

    def add(self, commands: list[Command]) -> list[Case]:
        """The cases of a later round (a size sweep's refinement), measured as the first round's."""
        cases = unique_cases(commands)
        self.commands.update({case.key: command for case, command in zip(cases, commands)})
        self.cases += cases
        return cases

    def expected(self, case: Case) -> str:
        return digest_of_text(self.options.expect) if self.options.expect is not None else ""

    def repetitions_per_process(self, case: Case) -> tuple[int, int]:
        return 0, 1

    def verify(self, case: Case) -> ProcessMeasurement | None:
        """--prepare-once and --check (once per parameter set), --setup, then the warm-up runs
        (untimed; their exit is judged as a timed run's)."""
        command = self.commands[case.key]
        if isinstance(point := self._point(command), ProcessMeasurement):
            return point
        if self.options.setup and (failed := self._helper(self.options.setup, command, "setup")):
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
        prepare = per_command(self.options.prepare, command.number)
        if prepare and (failed := self._helper(prepare, command, "prepare")):
            return failed, []
        iteration = f"warmup-{-1 - index}" if warm_up else str(index)
        policy = _OutputPolicy(per_command(self.options.output, command.number), self.checks_output)
        with policy as echo:
            finished = run_measured(list(command.argv), self.settings.timeout, self.settings.memory_limit_kb,
                                    env={**self.environment, "HYPERFINE_ITERATION": iteration}, protocol=False,
                                    echo_stdout=echo, discard_stdout=policy.discards)
        conclude = per_command(self.options.conclude, command.number)
        if conclude and (failed := self._helper(conclude, command, "conclude")):
            return failed, []
        # Unread, the output proves nothing: the exit code (judged in _verdict) is the proof then.
        digest = finished.stdout_digest[:16] if not policy.discards else ""
        outcome, detail = self._verdict(case, finished, digest)
        startup = self.shell_startup
        measurement = ProcessMeasurement(
            index, finished.wall_ns, finished.user_ns, finished.sys_ns, finished.max_rss_kb,
            finished.voluntary_switches, finished.involuntary_switches, finished.exit_code, outcome, detail,
            finished.stderr[-STDERR_TAIL:], finished.tree_peak_rss_kb, finished.memory)
        corrected = {"exit_code": finished.exit_code, "shell_startup_ns": startup.wall_ns,
                     "user_ns": max(0, finished.user_ns - startup.user_ns),
                     "sys_ns": max(0, finished.sys_ns - startup.sys_ns),
                     "output_read": not policy.discards, "stdout_bytes": finished.stdout_bytes,
                     "launcher_cpu_ns": finished.launcher_cpu_ns, **finished.machine_load}
        reps = [] if warm_up else [Repetition(index, 0, max(0, finished.wall_ns - startup.wall_ns), 1, digest,
                                              outcome == "ok", corrected)]
        return measurement, reps

    def _verdict(self, case: Case, finished, digest: str) -> tuple[str, str]:
        if finished.out_of_memory:
            return "limit", "out of memory (the case's memory limit)"
        if finished.timed_out:
            return "timeout", f"killed after {self.settings.timeout:g} s"
        if finished.exit_code != 0 and not self._ignored(finished.exit_code):
            how = f"killed by signal {finished.signal}" if finished.signal else f"exit {finished.exit_code}"
            return "crash", f"{how} (--ignore-failure accepts it)"
        reference = self.points.get(self.commands[case.key].parameters)
        if isinstance(reference, ReferenceOutput) and \
                (different := reference_output.mismatch(reference, finished.stdout_digest, finished.stdout_head)):
            return "wrong-checksum", different
        if self.options.expect is not None and finished.stdout_head.strip() != self.options.expect.strip():
            return "wrong-checksum", "its output is not --expect's"
        first = self.first_output.setdefault(case.key, digest)
        if self.options.expect_same and digest != first:
            return "wrong-checksum", "its output differs from the first run's (--expect-same)"
        return "ok", ""

    def _point(self, command: Command) -> ProcessMeasurement | ReferenceOutput | None:
        """Once per parameter set, before any run at it: --prepare-once (the inputs a size sweep
        reads, made outside every timing), then the output every run there must print."""
        key = command.parameters
        if key not in self.points:
            once = self.options.prepare_once
            self.points[key] = (once and self._helper(once, command, "prepare-once", own_shell(self.options.shell))) \
                or self._reference(command)
        return self.points[key]

    def _reference(self, command: Command) -> ProcessMeasurement | ReferenceOutput | None:
        values = dict(command.parameters)
        if self.options.expect_file:
            path = substitute(self.options.expect_file, values)
            try:
                return reference_output.from_file(path)
            except OSError as error:
                return ProcessMeasurement(-1, 0, 0, 0, 0, 0, 0, None, "crash",
                                          f"--expect-file {path}: {error.strerror or error}", "")
        if not self.options.check:
            return None
        argv = list(argv_for(self.options.check, values, own_shell(self.options.shell)))
        finished = run_measured(argv, self.settings.timeout, self.settings.memory_limit_kb, protocol=False)
        if finished.exit_code != 0:
            return ProcessMeasurement(-1, finished.wall_ns, finished.user_ns, finished.sys_ns, finished.max_rss_kb,
                                      0, 0, finished.exit_code, _outcome(finished),
                                      f"The check command {self._ended(finished)}: {substitute(self.options.check, values)}",
                                      finished.stderr[-STDERR_TAIL:])
        return ReferenceOutput(finished.stdout_digest, finished.stdout_head,
                               f"--check {substitute(self.options.check, values)}")

    def _ended(self, finished) -> str:
        """How a helper that did not exit 0 ended, in hyperfine's words where it has them: a
        helper killed at --timeout has no exit code, and "a non-zero exit code (None)" was untrue."""
        if finished.timed_out:
            return f"timed out: killed after {self.settings.timeout:g} s (--timeout)"
        if finished.out_of_memory:
            return "ran out of memory (the case's memory limit)"
        if finished.exit_code is None:
            return f"was killed by signal {finished.signal}" if finished.signal else "was killed"
        return f"terminated with a non-zero exit code ({finished.exit_code})"

    def _ignored(self, exit_code: int | None) -> bool:
        """hyperfine's rule: a signal is never ignored by a list of codes, only by 'all-non-zero'."""
        if self.ignored is None:
            return False
        return self.ignored == () or (exit_code is not None and exit_code in self.ignored)

    def _helper(self, template: str, command: Command, what: str, shell: str | None = None) -> ProcessMeasurement | None:
        """A --prepare / --setup / --cleanup / --conclude command, with the run's parameters,
        run as the commands are (through the shell, or split with -N; `shell` for parbench's own
        helpers, see own_shell); its failure is the case's failure (hyperfine stops there too),
        told with the values it ran with."""
        values = dict(command.parameters)
        argv = list(argv_for(template, values, shell or self.options.shell))
        finished = run_measured(argv, self.settings.timeout, self.settings.memory_limit_kb, protocol=False)
        if finished.exit_code == 0:
            return None
        return ProcessMeasurement(-1, finished.wall_ns, finished.user_ns, finished.sys_ns, finished.max_rss_kb,
                                  0, 0, finished.exit_code, _outcome(finished),
                                  f"The {what} command {self._ended(finished)}: {substitute(template, values)}",
                                  finished.stderr[-STDERR_TAIL:])

    def group_finished(self, cases: list[Case]) -> None:
        """--cleanup once per command, after all its runs."""
        if not self.options.cleanup:
            return
        for case in cases:
            if case.key not in self.cleaned:
                self.cleaned.add(case.key)
                self._helper(self.options.cleanup, self.commands[case.key], "cleanup")


def unique_cases(commands: list[Command]) -> list[Case]:
    """A case per benchmark; two that would share a key (the same command twice, or a reference
    that is also a command) are told apart by their benchmark number, as the store needs."""
    cases = [case_of(c) for c in commands]
    keys = [case.key for case in cases]
    return [case if keys.count(case.key) == 1 else
            Case(EXEC, EXEC, f"{case.model} #{i + 1}", case.family, case.params, note=case.note)
            for i, case in enumerate(cases)]


def _outcome(finished) -> str:
    """A helper's end as a case's outcome: killed at --timeout, out of memory, or a crash."""
    return "timeout" if finished.timed_out else "limit" if finished.out_of_memory else "crash"


class _OutputPolicy:
    """--output for one run, as hyperfine's: `null` (the default) is /dev/null, unread, unless a
    check needs the output (--expect, --expect-same, --check, --expect-file: then it is read as
    `pipe`); `pipe` reads and digests it (to say whether it was the same in every run), `inherit`
    also shows it, FILE also writes it there (truncated each run, as hyperfine does)."""

    def __init__(self, where: str | None, checked: bool = False):
        self.where, self.file = where or "null", None
        self.discards = self.where == "null" and not checked

    def __enter__(self):
        if self.where == "inherit":
            return lambda chunk: (sys.stdout.buffer.write(chunk), sys.stdout.buffer.flush())
        if self.where in ("pipe", "null"):
            return None
        self.file = open(self.where, "wb")
        return self.file.write

    def __exit__(self, *exc) -> None:
        if self.file is not None:
            self.file.close()
