"""The one pipeline that `run`, every sweep and `exec` go through (Benchee's shape):

    configure → prepare → begin → measure → finish → analyze → report

One `Invocation` record flows through and each stage returns it enriched. What differs between the
three commands is their `Kind`: how it plans its cases (a suite's plan, a sweep strategy's
rounds, exec's commands), which runner measures a process, and which analyses it derives.
The CLI only turns flags into a Kind and an Output, and calls `run`.
"""
from __future__ import annotations

import signal
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Protocol, runtime_checkable

from rich.console import Console

from parbench.analysis.results import plain
from parbench.errors import EXIT_FAILED_CASE, EXIT_NOT_WRITTEN, EXIT_OK, PipelineError
from parbench.escaping import one_line
from parbench.export import by_name, check_writable, write, write_all
from parbench.export.base import Report
from parbench.measure import liveness, machine_ceiling
from parbench.measure.sealing import sealed_paths
from parbench.measure.schedule import Execution, ProcessRunner, Progress, execute
from parbench.measure.sentinel import Sentinel
from parbench.project import DEFAULT_DB, RESULTS_DIR
from parbench.records import Analysis, Case, RunRecord, now
from parbench.report import console as console_report
from parbench.store import Store
from parbench.store.analyzed import all_analyses, load_analyzed
from parbench.store.database import StoreError, redact
from parbench.store.heartbeat import Heartbeat
from parbench.store.sink import RETRY_DELAYS_S, DiskFull, StoreSink, likely_cause, retrying
from parbench.workloads.input_files import InputError

LAYER = 9   # drives the stages below; the kinds and the command line above drive it

@runtime_checkable
class Kind(Protocol):
    """What one command measures: its cases, how a process is run, what is derived afterwards."""
    name: str                                       # suite | sweep | exec
    of_workloads: bool      # its cases are workloads: the drift sentinel and machine ceilings run between tables
    live_tables: bool       # each table printed as its cases finish (exec prints its answer first instead)
    resumable: bool         # `parbench run --resume` finishes it once interrupted

    def configure(self, invocation: Invocation) -> None: ...    # plan the first cases, make the record
    def rounds(self, invocation: Invocation) -> Iterator[list[Case]]: ...
    def analyses(self, record: RunRecord) -> list[Analysis]: ...   # stored with the run (sweep fits)
    def print_result(self, invocation: Invocation) -> None: ...


@dataclass
class Output:
    """Where the result goes: the console, report files, exports, a baseline name, the CI gate."""
    console: Console
    errors: Console
    db: str = str(DEFAULT_DB)
    out_dir: Path | None = None
    exports: dict = field(default_factory=dict)
    baseline: str | None = None
    strict: bool = False

    @property
    def db_flag(self) -> str:
        return "" if self.db == str(DEFAULT_DB) else f" --db {one_line(redact(self.db))}"


@dataclass
class Invocation:
    """One invocation of a measuring command (what Benchee calls its suite), enriched stage by stage."""
    kind: Kind
    store: Store
    output: Output
    record: RunRecord | None = None
    cases: list[Case] = field(default_factory=list)     # the first round's cases (checked before any run)
    runner: ProcessRunner | None = None
    resumed: bool = False
    sink: StoreSink | None = None
    execution: Execution = field(default_factory=Execution)
    analyses: list[Analysis] = field(default_factory=list)
    exit_code: int = EXIT_OK
    sentinel: Sentinel | None = None                     # the machine's drift, read between tables
    closed: str = ""                                     # the status the run was closed with, once it is
    heartbeat: Heartbeat | None = None                   # says the run is alive while it is measured


def run(invocation: Invocation, progress: Progress) -> Invocation:
    """The whole pipeline; PipelineError for what stops it before anything is measured."""
    try:
        for stage in (configure, prepare, begin):
            invocation = stage(invocation)
    except KeyboardInterrupt as interruption:     # a signal while the shell is calibrated, inputs are made…
        return stopped_before_measuring(invocation, interruption)
    try:
        invocation = measure(invocation, progress)
        for stage in (finish, analyze, report, decide):
            invocation = stage(invocation)
    except KeyboardInterrupt as interruption:     # a signal outside a case: after it, or in a report
        return interrupted(invocation, interruption)
    return invocation


def interrupted(invocation: Invocation, interruption: BaseException) -> Invocation:
    """A run stopped by a signal between its cases or while its reports are written: what is
    measured stays stored, the line says where and how to go on, the exit code names the signal."""
    complete = invocation.closed == "complete"
    if not invocation.closed:
        invocation.execution.interrupted = True
        close(invocation, "interrupted")
    next_step = (f"its reports: parbench show {invocation.record.id}{invocation.output.db_flag}" if complete
                 else f"{resume_hint(invocation)[0].upper()}{resume_hint(invocation)[1:]}")
    invocation.output.errors.print(f"Interrupted: run {invocation.record.id} is stored in {one_line(redact(invocation.output.db))}"
                              f"{' (complete)' if complete else ''}. {next_step}", highlight=False)
    invocation.exit_code = liveness.exit_code_of(interruption)
    return invocation


def stopped_before_measuring(invocation: Invocation, interruption: BaseException) -> Invocation:
    """A signal before the first case: a run already stored (a resume's, or one just begun) is
    closed with its resume line; else nothing was stored and the line says so."""
    if invocation.record is not None and invocation.record.id is not None:
        return interrupted(invocation, interruption)
    name = signal.Signals(liveness.signal_of(interruption)).name
    invocation.output.errors.print(f"Interrupted ({name}) before anything was measured: nothing is stored; "
                                   f"run the same command again to measure it", highlight=False)
    invocation.exit_code = liveness.exit_code_of(interruption)
    return invocation


def configure(invocation: Invocation) -> Invocation:
    """The kind plans its first cases and makes (or takes over) its run record."""
    invocation.kind.configure(invocation)
    if invocation.output.out_dir and (problem := check_writable(invocation.output.out_dir)):
        raise PipelineError(problem)
    return invocation


def prepare(invocation: Invocation) -> Invocation:
    """Every input and expected checksum of the first round, before a run is stored."""
    try:
        prepare_inputs(invocation.cases, invocation.runner)
    except InputError as error:
        raise PipelineError(f"{error}; nothing was run", code=1) from None
    return invocation


def prepare_inputs(cases: list[Case], runner: ProcessRunner) -> None:
    """Every input and the case's own expected checksum, before anything is stored: a full disk
    or a broken input says so before a run exists (InputError). Each repetition's answer is
    worked out after its process, for the variant it was fed (protocol 4). Cases of no workload
    (exec's commands) have nothing to prepare."""
    for case in cases:
        if case.workload in runner.workloads:
            workload = runner.workloads[case.workload]
            workload.expected_checksum(case.params, None)
            workload.expected_items(case.params)


def begin(invocation: Invocation) -> Invocation:
    """The run is stored (or, on a resume, its unfinished cases are cleared); its heartbeat starts."""
    if invocation.resumed:
        invocation.store.delete_unfinished_cases(invocation.record.id)
    else:
        try:
            invocation.store.begin_run(invocation.record, liveness.owner_id())
        except Exception as error:      # noqa: BLE001 — any store error: nothing has run yet
            cause = likely_cause(error)
            raise PipelineError(f"cannot write a new run to {redact(invocation.output.db)}: {error} "
                                + (f"({cause}); " if cause else "; ") + "nothing was run", code=1) from None
    invocation.sink = StoreSink(invocation.store, invocation.record, RESULTS_DIR / "journal")
    if invocation.kind.of_workloads and getattr(invocation.runner, "settings", None) is not None:
        invocation.runner.settings.hidden = sealed_paths(invocation.output.db, RESULTS_DIR / "journal")
    invocation.heartbeat = Heartbeat(invocation.output.db, invocation.record.id, liveness.owner_id()).start()
    return invocation


def _sentinel_for(invocation: Invocation) -> Callable[[Case | None], None]:
    """Between tables: reads the drift sentinel, and after a table measures the machine's own
    ceiling for it; each is stored with the run at once (one the store cannot take is only lost,
    never a failed run). exec's commands are left alone: nothing of parbench's runs beside what
    a user measures with it."""
    if not invocation.kind.of_workloads:
        return lambda after: None
    sentinel = invocation.sentinel = invocation.sentinel or Sentinel()
    workloads = invocation.runner.workloads

    def keep(name: str, subject: str, result: dict) -> None:
        try:
            invocation.store.add_analysis(invocation.record.id, name, subject, result)
        except Exception:        # noqa: BLE001 - a lost reading must not end a sitting
            pass

    def between_tables(after: Case | None) -> None:
        reading = sentinel.read(after.table_title if after else "")
        if reading is not None:
            keep("sentinel", str(reading.position), reading.as_dict())
        ceiling = workloads[after.workload].machine_ceiling(after.params) if after and after.workload in workloads else None
        if ceiling is not None:
            name, mode, amount = ceiling
            ns = machine_ceiling.measure(mode, amount)
            if ns:
                keep("machine-ceiling", after.table_title, {"name": name, "ns": ns})
    return between_tables


def measure(invocation: Invocation, progress: Progress) -> Invocation:
    """Each round of the kind's cases through the scheduler into the store."""
    try:
        for cases in invocation.kind.rounds(invocation):
            prepare_inputs(cases, invocation.runner)
            done = execute(cases, invocation.runner, invocation.sink, progress, _sentinel_for(invocation))
            invocation.execution.done += done.done
            invocation.execution.order += done.order
            invocation.execution.add_costs(done)
            if done.interrupted:
                invocation.execution.interrupted, invocation.execution.interruption = True, done.interruption
                break
    except DiskFull as error:
        close(invocation, "interrupted")
        raise PipelineError(f"{error}. Every case measured before it is stored in {redact(invocation.output.db)}; "
                            f"free some space and {resume_hint(invocation)}", code=1) from None
    except InputError as error:
        close(invocation, "interrupted")
        raise PipelineError(f"{error}; what was measured before it is stored in run {invocation.record.id}", code=1) from None
    return invocation


def resume_hint(invocation: Invocation) -> str:
    if invocation.kind.resumable:
        return f"resume with: parbench run --resume {invocation.record.id}{invocation.output.db_flag}"
    return f"start the {invocation.kind.name} again"


def close(invocation: Invocation, status: str) -> None:
    """The run's end in the store; else in its journal (when it has one)."""
    invocation.closed = status
    if invocation.heartbeat is not None:
        invocation.heartbeat.stop()
    finished_at = now()
    try:
        # the back-off's first three steps: a run's end in the journal loses no measurement
        retrying(invocation.store, lambda: invocation.store.finish_run(invocation.record.id, status, finished_at),
                 delays=RETRY_DELAYS_S[:3])
    except Exception:      # noqa: BLE001 — the run stays 'running' with a dead owner: the next start marks it
        if invocation.sink is not None and invocation.sink.journal.count:
            invocation.sink.journal.finish(status, finished_at)


def finish(invocation: Invocation) -> Invocation:
    close(invocation, "interrupted" if invocation.execution.interrupted else "complete")
    try:                                  # the harness's own cost, kept beside what it measured
        invocation.store.add_analysis(invocation.record.id, "harness-overhead", "all", invocation.execution.overhead())
    except Exception:        # noqa: BLE001 - a lost figure must not fail a measured run
        pass
    return invocation


def analyze(invocation: Invocation) -> Invocation:
    """Statistics recomputed from the stored samples, the kind's own analyses stored beside them."""
    try:
        invocation.record = load_analyzed(invocation.store, invocation.record.id)
    except Exception as error:      # noqa: BLE001 — the store is gone: the journal says where the cases are
        journal = invocation.sink.journal
        raise PipelineError(
            f"the run's cases could not be read back from {redact(invocation.output.db)} ({error}); "
            + (f"{journal.count} are kept in {journal.path}: parbench load {journal.path}{invocation.output.db_flag}"
               + _or_resume(invocation) if journal.count else "they are stored; `parbench show` prints them once it is back"), code=1) from None
    if not invocation.execution.interrupted:
        for name, subject, result in invocation.kind.analyses(invocation.record):
            invocation.store.add_analysis(invocation.record.id, name, subject, plain(result))
    invocation.analyses = all_analyses(invocation.store, invocation.record)
    return invocation


def report(invocation: Invocation) -> Invocation:
    """The console's answer, report files, exports and the baseline name; `show` enters here."""
    out = invocation.output
    invocation.kind.print_result(invocation)
    measured = invocation.sink is not None
    try:
        if out.out_dir:
            for path in write_reports(invocation.record, out.out_dir, invocation.analyses):
                out.console.print(f"wrote {one_line(path)}", highlight=False)
        if measured and invocation.execution.overhead_line():
            out.console.print(invocation.execution.overhead_line(), highlight=False)
        if measured and not invocation.sink.journal.count:
            out.console.print(f"stored as run {invocation.record.id} in {one_line(redact(out.db))}", highlight=False)
        write_all([Report(invocation.record, invocation.analyses)], out.exports, out.errors)
    except OSError as error:           # a full disk, say: the run itself is safe in the store
        raise PipelineError(f"cannot write the reports ({error.strerror or error}); the run is stored as run "
                            f"{invocation.record.id} in {redact(out.db)}: parbench show {invocation.record.id}"
                            f"{out.db_flag} --out DIR writes them again", code=1) from None
    if out.baseline:
        invocation.store.save_baseline(out.baseline, invocation.record.id, now())
        out.console.print(f"saved as baseline '{one_line(out.baseline)}'", highlight=False)
    if measured and invocation.sink.journal.count:
        out.errors.print(_partly_stored_line(invocation), highlight=False)
    return invocation


def _partly_stored_line(invocation: Invocation) -> str:
    """What a run whose store refused some cases (a full disk) tells: how many of its cases the
    store holds, where the others are, and how to store them; never "stored as run N" alone."""
    out, journal = invocation.output, invocation.sink.journal
    stored = len({r.case.key for r in invocation.record.results} - journal.keys)
    total = stored + journal.count
    kept = f"all {journal.count} are" if stored == 0 else f"the other {journal.count} are"
    return (f"{stored} of {total} cases stored in run {invocation.record.id} of {one_line(redact(out.db))} "
            f"({one_line(invocation.sink.errors[-1])}); {kept} in the journal {one_line(journal.path)}: "
            f"`parbench load {one_line(journal.path)}{out.db_flag}` them "
            f"{'when there is room' if likely_cause(invocation.sink.errors[-1]) == 'the disk is full' else 'once it takes writes'}"
            f"{_or_resume(invocation)}")


def _or_resume(invocation: Invocation) -> str:
    """The other way back for the cases a store did not take, where the kind has one: measure
    them again once the store takes writes (`run --resume` measures the cases it lacks)."""
    if not invocation.kind.resumable:
        return ""
    return f", or measure them again: {resume_hint(invocation).removeprefix('resume with: ')}"


def write_reports(record: RunRecord, out_dir: Path, analyses: list[Analysis]) -> list[Path]:
    """`--out DIR`: report.json and report.md, through the same exporters as --export-json/-markdown."""
    out_dir.mkdir(parents=True, exist_ok=True)
    reports = [Report(record, analyses)]
    return [write(by_name(name), reports, str(out_dir / filename))
            for name, filename in (("json", "report.json"), ("markdown", "report.md"))]


class Stored:
    """The kind of a run that is only shown again: nothing to plan or measure, every table printed."""
    name = "show"
    of_workloads, resumable, live_tables = False, False, False

    def configure(self, invocation: Invocation) -> None:
        pass

    def rounds(self, invocation: Invocation) -> Iterator[list[Case]]:
        yield from ()

    def analyses(self, record: RunRecord) -> list[Analysis]:
        return []

    def print_result(self, invocation: Invocation) -> None:
        console_report.print_run(invocation.record, invocation.output.console, invocation.analyses, tables=True)


def show(store: Store, reference: str | None, output: Output) -> Invocation:
    """`parbench show`: a stored run, analyzed afresh, through the same report stage as a run."""
    try:
        record = load_analyzed(store, reference)
    except StoreError as error:
        raise PipelineError(str(error)) from None
    return report(Invocation(Stored(), store, output, record=record, analyses=all_analyses(store, record)))


def decide(invocation: Invocation) -> Invocation:
    """The exit code: interrupted (130, 143 on SIGTERM, 129 on SIGHUP), cases measured that the
    store did not take (1: they wait in the journal), a failed case under --strict (3), else 0."""
    out = invocation.output
    if invocation.execution.interrupted:
        out.errors.print(f"Interrupted: {len(invocation.record.results)} cases are stored in run {invocation.record.id}. "
                         f"{resume_hint(invocation)[0].upper()}{resume_hint(invocation)[1:]}", highlight=False)
        invocation.exit_code = liveness.exit_code_of(invocation.execution.interruption)
        return invocation
    if invocation.sink is not None and invocation.sink.journal.count:
        invocation.exit_code = EXIT_NOT_WRITTEN          # _partly_stored_line said where they are
        return invocation
    failed = [r for r in invocation.record.results if r.run.status != "ok"]
    if out.strict and failed:
        out.errors.print(f"{len(failed)} case(s) without a verified timing (--strict): "
                         + ", ".join(f"{one_line(r.case.key)} ({r.run.status})" for r in failed[:5])
                         + (" …" if len(failed) > 5 else ""), highlight=False)
        invocation.exit_code = EXIT_FAILED_CASE
    return invocation
