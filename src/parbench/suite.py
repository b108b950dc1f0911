"""The run pipeline in one place: plan → run → analyze → store → report (Benchee's shape)."""
from __future__ import annotations

import datetime as dt
import sqlite3
from dataclasses import asdict
from pathlib import Path
from typing import Callable

from parbench import metadata
from parbench.analyze import analyze
from parbench.plan import Plan, Request
from parbench.records import Case, CaseRun, RunRecord
from parbench.run import Runner, Settings
from parbench.runtimes import Runtime
from parbench.store import Store


def now() -> str:
    return dt.datetime.now().astimezone().isoformat(timespec="seconds")


def describe_runtimes(runtimes: dict[str, Runtime], wanted: list[str]) -> tuple[dict, dict, list[str]]:
    """`run --list` of each wanted runtime that is installed and built; skip lines for the rest."""
    described, info, skipped = {}, {}, []
    for name in wanted:
        runtime = runtimes[name]
        if not runtime.available:
            skipped.append(f"{name}: skipped — {runtime.why_unavailable()}")
            continue
        try:
            described[name] = runtime.describe()
        except (RuntimeError, OSError, ValueError) as error:
            skipped.append(f"{name}: skipped — not runnable ({error}); build it with `parbench build --runtime {name}`")
            continue
        info[name] = {k: described[name].get(k, "") for k in ("version", "flags", "sources")}
    return described, info, skipped


def startup_cases(plan: Plan, described: dict[str, dict]) -> list[Case]:
    """One `noop` case per runtime in the plan: its boot and the harness's overhead, measured apart."""
    cases = []
    for name in dict.fromkeys(c.runtime for c in plan.cases):
        models = described.get(name, {}).get("workloads", {}).get("noop", {}).get("models", {})
        if models:
            cases.append(Case("noop", name, next(iter(models)), "seq", {}))
    return cases


def new_record(request: Request, runtimes_info: dict) -> RunRecord:
    options = asdict(request)
    return RunRecord(id=None, started_at=now(), scale=request.scale, options=options,
                     machine=metadata.machine(), runtimes=runtimes_info)


class DiskFull(RuntimeError):
    pass


def execute(cases: list[Case], runner: Runner, store: Store, run_id: int,
            on_case_start: Callable[[Case], None], on_case_done: Callable[[CaseRun], None]) -> list[CaseRun]:
    """Runs and stores the cases one by one, so an interruption loses at most the case in flight."""
    done = []
    for case in cases:
        on_case_start(case)
        outcome = runner.run_case(case)
        try:
            store.add_case(run_id, outcome)
        except sqlite3.OperationalError as error:
            raise DiskFull(f"could not store {case.key}: {error}") from None
        done.append(outcome)
        on_case_done(outcome)
    return done


def execute_with_progress(cases: list[Case], runner: Runner, store: Store, run_id: int,
                          console) -> tuple[list[CaseRun], bool]:
    """execute() under a progress bar; failures are printed as they happen.
    Returns the finished cases and whether the user pressed Ctrl-C."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    done: list[CaseRun] = []
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                  TimeElapsedColumn(), console=console, transient=True) as progress:
        bar = progress.add_task("", total=len(cases))

        def started(case: Case) -> None:
            progress.update(bar, description=f"{case.runtime} {case.workload} {case.model}")

        def finished(outcome: CaseRun) -> None:
            done.append(outcome)
            progress.advance(bar)
            if outcome.status != "ok":
                colour = "yellow" if outcome.status == "limit" else "red"
                progress.console.print(f"[{colour}]{outcome.status}[/] {outcome.case.key}: {outcome.reason}",
                                       highlight=False)
        try:
            execute(cases, runner, store, run_id, started, finished)
        except KeyboardInterrupt:
            return done, True
    return done, False


def settings_for(request: Request) -> Settings:
    return Settings(processes=request.setting("processes"), warmup=request.setting("warmup"),
                    repeat=request.setting("repeat"), timeout=request.setting("timeout"),
                    budget=request.setting("budget"))


def write_reports(record: RunRecord, out_dir: Path, analyses: list | None = None) -> list[Path]:
    from parbench.report import json_export, markdown
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in (("report.json", json_export.render(record, analyses)),
                       ("report.md", markdown.render(record, analyses))):
        path = out_dir / name
        path.write_text(text)
        written.append(path)
    return written


def load_analyzed(store: Store, reference) -> RunRecord:
    """A stored run with its statistics recomputed from the raw samples (deterministic)."""
    record = store.load_run(store.resolve(reference))
    record.results = analyze([r.run for r in record.results], record.machine.get("logical_cpus"))
    return record


def all_analyses(store: Store, record: RunRecord) -> list[tuple[str, str, dict]]:
    """A run's stored sweep analyses, and those computed from any run (batch-job Amdahl, the
    start-up split), which are derived afresh so they always match the stored samples."""
    from parbench.sweep import analyze_run, reanalyze
    fresh = reanalyze(record) if record.kind == "sweep" else []
    kinds = {kind for kind, _, _ in fresh}
    stored = [a for a in store.load_analyses(record.id) if a[0] not in kinds]
    return stored + fresh + analyze_run(record)
