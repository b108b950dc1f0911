"""Stage 2a: runs one fresh process of a case and judges what it printed.

A case's timing counts only if (a) the model first gave the oracle's answer on the workload's
verification input (the Benchmarks Game's "verify first") and (b) each timed repetition's
checksum equals the oracle's for the case itself, and (c) the process's numbers are plausible
(the repetitions asked for, times within the process's life, the unit count the plan implies).
(d) every line carries the evidence protocol 2 asks of it: its own variant's answer, warm-ups
included, the workers' intervals of a parallel model, and the workload's own proofs; a case whose
answers are right but unproven is `unproven`. Failures are results: they are recorded with
their reason and stderr tail, and the suite goes on.
"""
from __future__ import annotations

import os
import random
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parbench.analysis.steady_state import TOLERANCE, classify
from parbench.analysis.steady_state import judge as judge_series
from parbench.escaping import one_line
from parbench.measure import echo_loop
from parbench.measure.bench_user import BenchUser
from parbench.measure.loadgen import LoadgenMissing
from parbench.measure.process import FeedPolicy, Finished, run_measured
from parbench.measure.proofs import busy_problem, start_problem, thread_use, time_problem
from parbench.measure.protocol import (EXIT_BAD_ARGUMENTS, EXIT_LIMIT, accounted_ns, command_line, drop_harness_fields,
                                       feed_of, gaps_ns,
                                       implausible, parse_stdout)
from parbench.measure.runtimes import Runtime
from parbench.measure.sealing import scratch_root, sealed_process
from parbench.records import Case, ProcessMeasurement, Repetition
from parbench.units import format_bytes
from parbench.workloads import LineContext, Recheck, Workload
from parbench.workloads import input_files as inputs
from parbench.workloads.input_files import InputError

STDERR_TAIL = 2000
VERIFY_INDEX = -1       # the process on the verification input is kept with the case as index -1


@dataclass
class Settings:
    processes: int                 # at most this many fresh processes per case
    warmup: int | None             # None: until a steady state (protocol 4), within the budget below
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
    user: BenchUser | None = None  # the user benchmarks run as (None: the harness's own)
    hidden: tuple[str, ...] = ()   # what no benchmark may read: the answers, the store (sealing.py)
    # The steady-state search of each process (docs/methodology.md): at most this many
    # repetitions and this many seconds from the first variant, and the window's tolerance.
    warmup_max: int = 40
    warmup_budget: float = 0.5
    tolerance: float = TOLERANCE

    def policy(self, warmup: int | None, repeat: int) -> FeedPolicy:
        return FeedPolicy(warmup, repeat, self.warmup_budget, self.tolerance)

    def most_repetitions(self, warmup: int | None, repeat: int) -> int:
        """The variants a process may be fed: exactly warmup + repeat, or the search's cap."""
        return warmup + repeat if warmup is not None else max(self.warmup_max, repeat + 1)


# A process the load generator drives has no steady-state search (the launcher's feed does it):
# one warm-up repetition where the settings ask for a search.
DRIVEN_WARMUP = 1

MIN_PROCESSES = 2     # never fewer than two fresh processes: the variance between them is the point


@dataclass
class Expectations:
    """What one process owes: per line (its repetitions in order, warm-ups first) the oracle's
    answer (None where only its form is checked) and the context its proofs are judged in; the
    case's unit count; whether the case's answers must never repeat (`seen` holds those printed
    so far). The answers are worked out after the process, for the variants it was fed."""
    repeat: int
    checksums: list[str | None]
    contexts: list[LineContext]
    workload: Workload
    workers: int | None
    recheck: Recheck | None = None
    seen: set[str] | None = None
    start: str | None = None       # the start mode asked for (protocol 3), None for a model without
    kernel: str | None = None      # the kernel class asked for, None for a workload without
    tolerance: float = TOLERANCE   # the steady-state window's, for classifying the process

    def checksum_of(self, index: int) -> str | None:
        """Repetition `index`'s answer; for a line no variant was fed for, one nothing equals."""
        return self.checksums[index] if index < len(self.checksums) else "(no variant was fed for it)"


class WorkloadRunner:
    """Runs processes of cases; remembers which models already passed verification in this run."""

    def __init__(self, runtimes: dict[str, Runtime], workloads: dict[str, Workload], settings: Settings):
        self.runtimes, self.workloads, self.settings = runtimes, workloads, settings
        self._verified: dict[tuple, ProcessMeasurement | None] = {}
        self._seen: dict[str, set[str]] = {}
        self._random = random.Random()       # probe positions: unpredictable, never stored

    def expected(self, case: Case) -> str:
        """The oracle's answer for the case's own params (shown with the case; each repetition is
        checked against its own variant's), or a note where only the form can be checked."""
        workload = self.workloads[case.workload]
        answer = workload.expected_checksum(case.params, None)
        return answer if answer is not None else "(random: digest form, probes and uniqueness checked)"

    def group_finished(self, cases: list[Case]) -> None:
        """Nothing to undo after a table: each process cleans up after itself."""

    def repetitions_per_process(self, case: Case) -> tuple[int | None, int]:
        """(warmup, repeat), warmup None for a steady-state search: a workload marked
        `one_repetition_per_process` runs one a process (batch-job no longer is: it restores its
        database from the pristine tables between repetitions), and so does a model its runtime
        marks so (runtime.toml's [[one_repetition]])."""
        if self.workloads[case.workload].one_repetition_per_process:
            return 0, 1
        if self.runtimes[case.runtime].one_repetition(case.workload, case.model, case.params) is not None:
            return 0, 1
        return self.settings.warmup, self.settings.repeat

    def verify(self, case: Case) -> ProcessMeasurement | None:
        """The first failing process on the workload's verification inputs, or None if all agree
        with the oracle. Shared by every case of the same model and the same params beyond the
        verification sets' (a kernel, a chunk, a database) in this run."""
        if not self.settings.verify_first:
            return None
        workload = self.workloads[case.workload]
        sets = workload.verify_sets()
        carried = {k: v for k, v in case.params.items() if not sets or k not in sets[0]}
        key = (case.runtime, case.workload, case.model, case.workers is not None, tuple(sorted(carried.items(), key=str)))
        if key not in self._verified:
            self._verified[key] = None
            for params in sets:
                probe = Case(case.workload, case.runtime, case.model, case.family, {**carried, **params}, case.workers)
                measurement, _ = self.one_process(probe, VERIFY_INDEX, 0, 1)
                if measurement.outcome != "ok":
                    measurement.detail = (f"on the verification input, before timing: {_brief(probe.params)}: "
                                          f"{measurement.detail}")
                    self._verified[key] = measurement
                    break
        return self._verified[key]

    def one_process(self, case: Case, index: int, warmup: int, repeat: int
                    ) -> tuple[ProcessMeasurement, list[Repetition]]:
        runtime = self.runtimes[case.runtime]
        workload = self.workloads[case.workload]
        scratch = Path(tempfile.mkdtemp(prefix="parbench-", dir=scratch_root()))
        try:
            try:
                params, recheck = workload.process_arguments(case.params, scratch)
                if inputs.changed(params):          # changed since it was made: made anew
                    inputs.discard_changed(params)
                    params, recheck = workload.process_arguments(case.params, scratch)
                most = self.settings.most_repetitions(warmup, repeat)
                variants = workload.variants(case.params, most)
                extras = workload.process_extras(case.params, self._random)
            except (InputError, RuntimeError, OSError) as error:
                return _harness_error(index, f"could not prepare the input: {error}"), []
            argv = command_line(str(runtime.run_script), case.workload, case.model, {**params, **extras},
                                case.workers)
            driven = None
            try:
                seal = sealed_process(self.settings.user, scratch, self.settings.hidden)
                if workload.driver == "load-generator":     # echo-server: the harness drives it
                    warmup = DRIVEN_WARMUP if warmup is None else warmup
                    driven = echo_loop.run(argv, self.settings.timeout, self.settings.memory_limit_kb, variants,
                                           case.params, warmup + repeat, warmup, scratch, **seal)
                    finished = driven.finished
                else:
                    finished = run_measured(argv, self.settings.timeout, self.settings.memory_limit_kb,
                                            feed=feed_of(variants, most), policy=self.settings.policy(warmup, repeat),
                                            **seal)
            except (OSError, LoadgenMissing) as error:
                # The machine itself said no (no processes left while an earlier case's thousands
                # of threads are still being reaped, say): a result too.
                return _harness_error(index, f"could not start the process: {error}"), []
            fed = (variants or [None] * most)[:len(finished.fed_ns) if driven is None else len(driven.loads)]
            try:       # the oracle's answers for what was fed, after the process: none existed before
                checksums = [workload.expected_checksum(case.params, v) for v in fed]
            except (InputError, RuntimeError, OSError) as error:
                return _harness_error(index, f"could not work out the expected answers: {error}"), []
            contexts = [LineContext(case.params, v, extras, case.family) for v in fed]
            # A server's workers report no busy intervals (protocol 2): its time is the load
            # generator's, and what its workers do in it shows only in the replies they serve.
            workers = case.workers if driven is None else None
            expectations = Expectations(repeat, checksums, contexts, workload, workers, recheck,
                                        self._seen.setdefault(case.key, set()) if workload.unique_answers(case.params)
                                        else None, start=case.params.get("start"),
                                        kernel=case.params.get("kernel", "portable") if "kernel" in workload.params
                                        else None, tolerance=self.settings.tolerance)
            problems = inputs.changed(params)
            if problems:                            # this process wrote into its input
                inputs.discard_changed(params)
                measurement = judge(finished, index, expectations, self.settings.timeout)[0]
                measurement.outcome, measurement.detail = "bad-output", (
                    f"it changed its input {', '.join(problems)}; the input is made anew for the next process")
                return measurement, []
            judged = judge(finished, index, expectations, self.settings.timeout)
            if driven is None:
                return judged
            return _driven_startup(judged, finished) if driven.failure is None else _driven_failure(judged, driven.failure)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)


def _driven_startup(judged: tuple[ProcessMeasurement, list[Repetition]], finished: Finished
                    ) -> tuple[ProcessMeasurement, list[Repetition]]:
    """A server's start-up is the time to its ready line: its first repetition's line comes after
    the load generator's run and probes, which are not the server's start."""
    measurement, reps = judged
    if reps and finished.stdout_times:
        reps[0].extra["startup_ns"] = int(finished.stdout_times[0])
    return measurement, reps


def _driven_failure(judged: tuple[ProcessMeasurement, list[Repetition]], failure: echo_loop.Failure
                    ) -> tuple[ProcessMeasurement, list[Repetition]]:
    """A process whose repetitions the load generator drove and one of which failed: the load
    generator's reason, after the launcher's where the server itself crashed."""
    measurement, reps = judged
    if measurement.outcome == "crash":
        measurement.detail = f"{measurement.detail.rstrip(': ')}; {failure.detail}"
    else:
        measurement.outcome, measurement.detail = failure.outcome, failure.detail
    for rep in reps:
        rep.verified = False
    return measurement, reps


def _harness_error(index: int, detail: str) -> ProcessMeasurement:
    return ProcessMeasurement(index, 0, 0, 0, 0, 0, 0, None, "harness-error", detail)


def judge(finished: Finished, index: int, expect: Expectations, timeout: float
          ) -> tuple[ProcessMeasurement, list[Repetition]]:
    """The verdict on one process: its measurement and the repetitions that count."""
    measurement = ProcessMeasurement(
        index, finished.wall_ns, finished.user_ns, finished.sys_ns, finished.max_rss_kb,
        finished.voluntary_switches, finished.involuntary_switches, finished.exit_code,
        "ok", stderr_tail=finished.stderr[-STDERR_TAIL:], tree_peak_rss_kb=finished.tree_peak_rss_kb,
        memory=finished.memory)
    reply = parse_stdout(finished.stdout_lines, finished.stdout_times, finished.first_timed, repeat=expect.repeat)
    warmup = len(reply.warmups)
    forged = drop_harness_fields(reply.warmups + reply.repetitions)
    for position, line in enumerate(reply.warmups + reply.repetitions):
        if position + 1 >= len(finished.threads) or not isinstance(line.get("extra"), dict):
            continue
        # The kernel's, for the workloads' proofs of units: the tree's peak so far; the tasks the
        # machine made between the line before and this one (the repetition's own, at most); and
        # the tree's threads alive at both lines that ran between them, which a runtime may reuse
        # for new units (Ruby keeps an ended Thread's native thread for the next Thread.new). A
        # unit that passed the token ran; a thread kept alive and asleep did not, so idle threads
        # kept beside a chain done on one thread do not count.
        before, at = finished.threads[position], finished.threads[position + 1]
        if at.peak_tasks is not None:
            line["extra"]["peak_tasks"] = at.peak_tasks
        if at.machine_forks is not None and before.machine_forks is not None:
            line["extra"]["tasks_made"] = at.machine_forks - before.machine_forks
            line["extra"]["tasks_kept"] = sum(1 for thread, cpu_ns in at.threads.items()
                                              if cpu_ns > before.threads.get(thread, cpu_ns))
    reps = []
    for position, (r, gap) in enumerate(zip(reply.repetitions, gaps_ns(reply, finished.fed_ns)), warmup):
        expected = expect.checksum_of(position)
        extra = dict(r.get("extra", {}))
        if gap is not None:
            extra["gap_ns"] = gap         # the harness's own observation, for the time accounting
        use = thread_use(finished.threads, position)
        if use is not None:               # the launcher's view of the tree's threads (protocol 3)
            extra.update(use.as_extra())
        reps.append(Repetition(index, position - warmup, r["ns"], r["items"], r["checksum"],
                               expected is None or r["checksum"] == expected, extra))
    if reps:              # the process's own: its start-up, its warm-up, and the machine around it
        reps[0].extra.update(_before_the_work(reply), **_warm_up(reply, finished, expect), **finished.machine_load)
        if reply.ready and reply.ready.get("ready") == "warm":
            reps[0].extra["pool_start_ns"] = int(reply.ready["start_ns"])

    def verdict(outcome: str, detail: str):
        measurement.outcome, measurement.detail = outcome, detail
        for rep in reps:
            rep.verified = rep.verified and outcome == "ok"
        return measurement, reps

    if finished.stdout_problem:
        return verdict("bad-output", finished.stdout_problem)
    if finished.protocol_problem:      # the reader's own reason where it has one, it is the more precise
        return verdict("bad-output", f"{reply.malformed or one_line(finished.protocol_problem)} (protocol 4: one line "
                                     "per repetition, nothing else on stdout; no further variant was written)")
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
    if reply.ready is None and (reply.repetitions or reply.warmups):
        return verdict("bad-output", "printed no ready line before its first repetition (protocol 3: "
                                     '{"ready":"cold"|"warm"|"none"} once, before reading the first variant)')
    items = expect.workload.expected_items(expect.contexts[0].params) if expect.contexts else None
    waits = _waits(finished, len(reply.warmups) + len(reply.repetitions))
    problem = implausible(reply, expect.repeat, items, finished.wall_ns, expect.workload.items,
                          zero_allowed=items == 0 or index < 0, waited_ns=waits)
    if problem:
        return verdict("bad-output", problem)
    lines = reply.warmups + reply.repetitions
    wrong = _wrong_answer(lines, expect)
    if wrong:
        return verdict("wrong-checksum", wrong)
    mismatch = _not_what_was_asked(reply, expect)
    if mismatch:
        return verdict("bad-output", mismatch)
    # The verification process's times are not kept (its zero is allowed above): its time is
    # judged in the timed processes, where the reasons name what the numbers cannot be.
    too_busy: list[str] = []
    too_long = None if index < 0 else time_problem(lines, reply.warmup_arrival_ns + reply.arrival_ns, finished.fed_ns,
                                                   untimed_work=expect.workload.untimed_work,
                                                   waited_ns=waits, too_busy=too_busy)
    if too_long:
        return verdict("bad-output", too_long)
    if expect.start is not None:
        for position, line in enumerate(reply.repetitions, warmup):
            problem = start_problem(expect.start, thread_use(finished.threads, position),
                                    expect.contexts[0].family if expect.contexts else "threads", first=position == 0,
                                    ns=int(line["ns"]))
            if problem:
                return verdict("bad-output", f"{_label(line)}: {problem}")
    unproven = _unproven(lines, expect)
    if unproven:
        return verdict("unproven", unproven)
    if expect.recheck is not None:
        found = expect.recheck()
        if found is not None:
            return verdict("wrong-checksum", found)
    if expect.seen is not None:
        expect.seen.update(line["checksum"] for line in lines)
    notes = []
    leftover = finished.memory.get("leftover")
    if leftover:
        notes.append(f"{leftover} process(es) outlived it and were killed")
    if too_busy:
        notes.append(f"the machine was too busy to judge the time outside the timer of {len(too_busy)} "
                     f"repetition(s), e.g. {too_busy[0]}: passed on the kernel's word that it waited")
    if forged:
        notes.append(f"its lines set the harness's own field(s) {', '.join(forged)}: dropped, the harness's "
                     "readings stand")
    measurement.detail = "; ".join(notes)
    return measurement, reps


def _waits(finished: Finished, count: int) -> list[int]:
    """Per line, the time the tree and the launcher waited for a core that cannot have been work
    (proofs.ThreadUse.wait_not_work_ns); 0 where the launcher did not see the repetition whole."""
    cores = len(os.sched_getaffinity(0))
    uses = [thread_use(finished.threads, position) for position in range(count)]
    return [use.wait_not_work_ns(cores) if use is not None else 0 for use in uses]


def _before_the_work(reply) -> dict:
    """A process's start-up as the launcher's line stamps show it (analysis/startup.py): the time
    before its first line's work began, less the input loading that line reports; and the work
    of its warm-ups, which are not stored."""
    lines, arrivals = reply.warmups + reply.repetitions, reply.warmup_arrival_ns + reply.arrival_ns
    if not lines or len(arrivals) != len(lines):
        return {}
    number = lambda v: v if isinstance(v, (int, float)) and not isinstance(v, bool) else 0
    load = number((lines[0].get("extra") or {}).get("load_ns"))
    return {"startup_ns": int(arrivals[0] - accounted_ns(lines[0]) - load),
            "warmup_ns": int(sum(number(w.get("ns")) for w in reply.warmups))}


def _warm_up(reply, finished: Finished, expect: Expectations) -> dict:
    """How the process reached the repetitions that are timed (protocol 4), judged by the
    launcher's clock (launcher_series): its class, the first repetition's time (what a one-shot
    command pays) and the repetitions before; and its class by its own `ns` beside, the
    cross-check, which decides nothing."""
    lines = reply.warmups + reply.repetitions
    own = [int(line["ns"]) for line in lines]
    if not own:
        return {}
    seen = finished.launcher_series if len(finished.launcher_series) == len(own) else launcher_series(reply, finished.fed_ns)
    timed = len(reply.repetitions)
    judged = judge_series(seen, timed, expect.tolerance, finished.feed_verdict)
    level = {} if judged.level is None else {"steady_level_ns": int(judged.level),
                                             "steady_spread_ns": int(judged.spread or 0)}
    return {"steady_class": judged.cls, "first_ns": first_repetition_ns(own, seen, timed),
            "warmup_reps": len(reply.warmups), "steady_search": finished.feed_verdict, **level,
            "ns_class": classify(own, timed, expect.tolerance, "fixed" if finished.feed_verdict == "fixed" else "")}


def launcher_series(reply, fed_ns: list[int]) -> list[int]:
    """Each repetition's time as the launcher saw it, from writing its variant to reading its line
    (warm-ups first), where the launcher sent no series of its own (it sends the gaps less their
    waits, the series it ended the warm-up by, which the class is judged on). A repetition whose
    variant has no stamp (a run without a feed) keeps its own ns."""
    arrivals = reply.warmup_arrival_ns + reply.arrival_ns
    lines = reply.warmups + reply.repetitions
    return [arrivals[i] - fed_ns[i] if i < len(fed_ns) and i < len(arrivals) else int(line["ns"])
            for i, line in enumerate(lines)]


def first_repetition_ns(own: list[int], seen: list[int], timed: int) -> int:
    """The first repetition's time: its ns, and whatever more than a timed repetition usually
    does the launcher saw it spend outside its timer, so that a slow first repetition booked as
    preparation still reads as slow."""
    outside = sorted(s - o for s, o in zip(seen[-timed:], own[-timed:]))
    usual = outside[len(outside) // 2] if outside else 0
    return own[0] + max(0, seen[0] - own[0] - usual)


def _label(line: dict) -> str:
    return f"repetition {line['rep']}"


def _wrong_answer(lines: list[dict], expect: Expectations) -> str | None:
    """The first line whose checksum is not its own variant's answer (warm-ups included), or one
    that repeats an answer the case has printed before where answers must never repeat."""
    for position, line in enumerate(lines):
        expected = expect.checksum_of(position)
        if expected is not None and line["checksum"] != expected:
            variant = expect.contexts[position].variant
            return (f"{_label(line)}: checksum {line['checksum']!r}, expected {expected!r}"
                    + (f" (its variant {variant})" if variant is not None else ""))
        if expect.seen is not None and line["checksum"] in expect.seen:
            return (f"{_label(line)} printed the digest {line['checksum']} that an earlier process of the case "
                    "printed: random keys cannot repeat, so a result was reused")
    return None


def _not_what_was_asked(reply, expect: Expectations) -> str | None:
    """A line whose echo of the start mode or the kernel class differs from what the case asked
    for: its figure would sit in the wrong row (protocol 3)."""
    ready = (reply.ready or {}).get("ready")
    if expect.start is not None and ready not in (None, expect.start):
        return f"its ready line says {ready!r}, the case asked for --start {expect.start}"
    for line in reply.warmups + reply.repetitions:
        extra = line.get("extra") or {}
        if expect.start is not None and extra.get("start") != expect.start:
            return (f"{_label(line)}: extra.start is {extra.get('start')!r}, the case asked for --start "
                    f"{expect.start} (every repetition echoes the mode that ran)")
        if expect.kernel is not None and extra.get("kernel") != expect.kernel:
            return (f"{_label(line)}: extra.kernel is {extra.get('kernel')!r}, the case asked for the "
                    f"{expect.kernel} kernel (every repetition echoes the class that ran)")
    return None


def _unproven(lines: list[dict], expect: Expectations) -> str | None:
    """Why the lines, right as their checksums may be, do not prove the work: a parallel model
    without its workers' intervals, a workload's own proof (probes, live units, switches)."""
    for position, line in enumerate(lines):
        extra = line.get("extra", {})
        if expect.workers is not None:
            problem = busy_problem(extra, line["ns"], expect.workers)
            if problem:
                return f"{_label(line)}: {problem}"
        problem = expect.workload.line_problem(line, expect.contexts[position])
        if problem:
            return f"{_label(line)}: {problem}"
    return expect.workload.process_problem(lines, expect.contexts[0]) if expect.contexts else None


def _last_line(text: str) -> str:
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1][:300] if lines else ""


def _brief(params: dict[str, Any]) -> str:
    return ",".join(f"{k}={v}" for k, v in params.items())
