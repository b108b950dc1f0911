"""The one pipeline that `run`, every sweep and `exec` go through (Benchee's shape):

    configure → prepare → begin → measure → finish → analyze → report

One `Suite` record flows through and each stage returns it enriched. What differs between the
three commands is their `Kind`: how it plans its cases (a suite's plan, a sweep strategy's
rounds, exec's commands), which runner measures a process, and which analyses it derives.
The CLI only turns flags into a Kind and an Output, and calls `run`.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator, Protocol

from parbench import liveness, suite as stages
from parbench.errors import EXIT_FAILED_CASE, EXIT_OK, PipelineError
from parbench.inputs import InputError
from parbench import machine_ceiling
from parbench.sentinel import Sentinel
from parbench.project import DEFAULT_DB, RESULTS_DIR
from parbench.records import Case, RunRecord
from parbench.schedule import Execution, Progress, execute
from parbench.store import Store
from parbench.store.database import redact
from parbench.store.heartbeat import Heartbeat
from parbench.store.sink import DiskFull, StoreSink, retrying

class Kind(Protocol):
    """What one command measures: its cases, how a process is run, what is derived afterwards."""
    name: str                                       # suite | sweep | exec

    def configure(self, suite: "Suite") -> None: ...       # plan the first cases, make the record
    def rounds(self, suite: "Suite") -> Iterator[list[Case]]: ...
    def analyses(self, record: RunRecord) -> list: ...      # stored with the run (sweep fits)
    def print_result(self, suite: "Suite") -> None: ...


@dataclass
class Output:
    """Where the result goes: the console, report files, exports, a baseline name, the CI gate."""
    console: object
    errors: object
    db: str = str(DEFAULT_DB)
    out_dir: Path | None = None
    exports: dict = field(default_factory=dict)
    baseline: str | None = None
    strict: bool = False

    @property
    def db_flag(self) -> str:
        return "" if self.db == str(DEFAULT_DB) else f" --db {redact(self.db)}"


@dataclass
class Suite:
    """One invocation, enriched stage by stage."""
    kind: Kind
    store: Store
    output: Output
    record: RunRecord | None = None
    cases: list[Case] = field(default_factory=list)     # the first round's cases (checked before any run)
    runner: object = None
    resumed: bool = False
    sink: StoreSink | None = None
    execution: Execution = field(default_factory=Execution)
    analyses: list = field(default_factory=list)
    exit_code: int = EXIT_OK
    sentinel: Sentinel | None = None                     # the machine's drift, read between tables
    closed: str = ""                                     # the status the run was closed with, once it is
    heartbeat: Heartbeat | None = None                   # says the run is alive while it is measured


def run(suite: Suite, progress: Progress) -> Suite:
    """The whole pipeline; PipelineError for what stops it before anything is measured."""
    for stage in (configure, prepare, begin):
        suite = stage(suite)
    try:
        suite = measure(suite, progress)
        for stage in (finish, analyze, report, decide):
            suite = stage(suite)
    except KeyboardInterrupt as interruption:     # a signal outside a case: after it, or in a report
        return interrupted(suite, interruption)
    return suite


def interrupted(suite: Suite, interruption: BaseException) -> Suite:
    """A run stopped by a signal between its cases or while its reports are written: what is
    measured stays stored, the line says where and how to go on, the exit code names the signal."""
    complete = suite.closed == "complete"
    if not suite.closed:
        suite.execution.interrupted = True
        close(suite, "interrupted")
    next_step = (f"its reports: parbench show {suite.record.id}{suite.output.db_flag}" if complete
                 else f"{resume_hint(suite)[0].upper()}{resume_hint(suite)[1:]}")
    suite.output.errors.print(f"Interrupted: run {suite.record.id} is stored in {redact(suite.output.db)}"
                              f"{' (complete)' if complete else ''}. {next_step}", highlight=False)
    suite.exit_code = liveness.exit_code_of(interruption)
    return suite


def configure(suite: Suite) -> Suite:
    """The kind plans its first cases and makes (or takes over) its run record."""
    suite.kind.configure(suite)
    if suite.output.out_dir and (problem := stages.check_writable(suite.output.out_dir)):
        raise PipelineError(problem)
    return suite


def prepare(suite: Suite) -> Suite:
    """Every input and expected checksum of the first round, before a run is stored."""
    try:
        stages.prepare(suite.cases, suite.runner)
    except InputError as error:
        raise PipelineError(f"{error}; nothing was run", code=1) from None
    return suite


def begin(suite: Suite) -> Suite:
    """The run is stored (or, on a resume, its unfinished cases are cleared); its heartbeat starts."""
    if suite.resumed:
        suite.store.delete_unfinished_cases(suite.record.id)
    else:
        try:
            suite.store.begin_run(suite.record, liveness.owner_id())
        except Exception as error:      # noqa: BLE001 — any store error: nothing has run yet
            raise PipelineError(f"cannot write a new run to {redact(suite.output.db)}: {error} "
                                "(is the disk full?); nothing was run", code=1) from None
    suite.sink = StoreSink(suite.store, suite.record, RESULTS_DIR / "journal")
    suite.heartbeat = Heartbeat(suite.output.db, suite.record.id, liveness.owner_id()).start()
    return suite


def _sentinel_for(suite: Suite):
    """Between tables: reads the drift sentinel, and after a table measures the machine's own
    ceiling for it; each is stored with the run at once (one the store cannot take is only lost,
    never a failed run). exec's commands are left alone: nothing of parbench's runs beside what
    a user measures with it."""
    if suite.kind.name == "exec":
        return lambda after: None
    sentinel = suite.sentinel = suite.sentinel or Sentinel()
    workloads = suite.runner.workloads

    def keep(kind: str, subject: str, result: dict) -> None:
        try:
            suite.store.add_analysis(suite.record.id, kind, subject, result)
        except Exception:        # noqa: BLE001 - a lost reading must not end a sitting
            pass

    def between_tables(after: Case | None) -> None:
        reading = sentinel.read(str(after.table) if after else "")
        if reading is not None:
            keep("sentinel", str(reading.position), reading.as_dict())
        ceiling = workloads[after.workload].machine_ceiling(after.params) if after and after.workload in workloads else None
        if ceiling is not None:
            name, mode, amount = ceiling
            ns = machine_ceiling.measure(mode, amount)
            if ns:
                keep("machine-ceiling", str(after.table), {"name": name, "ns": ns})
    return between_tables


def measure(suite: Suite, progress: Progress) -> Suite:
    """Each round of the kind's cases through the scheduler into the store."""
    try:
        for cases in suite.kind.rounds(suite):
            stages.prepare(cases, suite.runner)
            done = execute(cases, suite.runner, suite.sink, progress, _sentinel_for(suite))
            suite.execution.done += done.done
            suite.execution.order += done.order
            if done.interrupted:
                suite.execution.interrupted, suite.execution.interruption = True, done.interruption
                break
    except DiskFull as error:
        close(suite, "interrupted")
        raise PipelineError(f"{error}. Every case measured before it is stored in {redact(suite.output.db)}; "
                            f"free some space and {resume_hint(suite)}", code=1) from None
    except InputError as error:
        close(suite, "interrupted")
        raise PipelineError(f"{error}; what was measured before it is stored in run {suite.record.id}", code=1) from None
    return suite


def resume_hint(suite: Suite) -> str:
    if suite.kind.name == "suite":
        return f"resume with: parbench run --resume {suite.record.id}{suite.output.db_flag}"
    return f"start the {suite.kind.name} again"


def close(suite: Suite, status: str) -> None:
    """The run's end in the store; else in its journal (when it has one)."""
    suite.closed = status
    if suite.heartbeat is not None:
        suite.heartbeat.stop()
    finished_at = stages.now()
    try:
        retrying(suite.store, lambda: suite.store.finish_run(suite.record.id, status, finished_at), delays=(1, 2, 4))
    except Exception:      # noqa: BLE001 — the run stays 'running' with a dead owner: the next start marks it
        if suite.sink is not None and suite.sink.journal.count:
            suite.sink.journal.finish(status, finished_at)


def finish(suite: Suite) -> Suite:
    close(suite, "interrupted" if suite.execution.interrupted else "complete")
    return suite


def analyze(suite: Suite) -> Suite:
    """Statistics recomputed from the stored samples, the kind's own analyses stored beside them."""
    try:
        suite.record = stages.load_analyzed(suite.store, suite.record.id)
    except Exception as error:      # noqa: BLE001 — the store is gone: the journal says where the cases are
        journal = suite.sink.journal
        raise PipelineError(
            f"the run's cases could not be read back from {redact(suite.output.db)} ({error}); "
            + (f"{journal.count} are kept in {journal.path}: parbench load {journal.path}{suite.output.db_flag}"
               if journal.count else "they are stored; `parbench show` prints them once it is back"), code=1) from None
    if not suite.execution.interrupted:
        for kind, subject, result in suite.kind.analyses(suite.record):
            suite.store.add_analysis(suite.record.id, kind, subject, result)
    suite.analyses = stages.all_analyses(suite.store, suite.record)
    return suite


def report(suite: Suite) -> Suite:
    """The console's answer, report files, exports and the baseline name."""
    from parbench.export import write_all
    from parbench.export.base import Report
    out = suite.output
    suite.kind.print_result(suite)
    try:
        if out.out_dir:
            for path in stages.write_reports(suite.record, out.out_dir, suite.analyses):
                out.console.print(f"wrote {path}", highlight=False)
        out.console.print(f"stored as run {suite.record.id} in {redact(out.db)}", highlight=False)
        write_all([Report(suite.record, suite.analyses)], out.exports, out.errors)
    except OSError as error:           # a full disk, say: the run itself is safe in the store
        raise PipelineError(f"cannot write the reports ({error.strerror or error}); the run is stored as run "
                            f"{suite.record.id} in {redact(out.db)}: parbench show {suite.record.id}{out.db_flag} "
                            "--out DIR writes them again", code=1) from None
    if out.baseline:
        suite.store.save_baseline(out.baseline, suite.record.id, stages.now())
        out.console.print(f"saved as baseline '{out.baseline}'", highlight=False)
    if suite.sink.journal.count:
        out.errors.print(f"{suite.sink.journal.count} case(s) could not be stored in {redact(out.db)} "
                         f"({suite.sink.errors[-1]}); they are kept in {suite.sink.journal.path}. Load them with: "
                         f"parbench load {suite.sink.journal.path}{out.db_flag}", highlight=False)
    return suite


def decide(suite: Suite) -> Suite:
    """The exit code: interrupted (130, 143 on SIGTERM, 129 on SIGHUP), a failed case under
    --strict (3), else 0."""
    out = suite.output
    if suite.execution.interrupted:
        out.errors.print(f"Interrupted: {len(suite.record.results)} cases are stored in run {suite.record.id}. "
                         f"{resume_hint(suite)[0].upper()}{resume_hint(suite)[1:]}", highlight=False)
        suite.exit_code = liveness.exit_code_of(suite.execution.interruption)
        return suite
    failed = [r for r in suite.record.results if r.run.status != "ok"]
    if out.strict and failed:
        out.errors.print(f"{len(failed)} case(s) without a verified timing (--strict): "
                         + ", ".join(f"{r.case.key} ({r.run.status})" for r in failed[:5])
                         + (" …" if len(failed) > 5 else ""), highlight=False)
        suite.exit_code = EXIT_FAILED_CASE
    return suite


def cores() -> int:
    return os.cpu_count() or 1
