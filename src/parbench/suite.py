"""The run pipeline's stages that `run` and every sweep share: describe the runtimes, prepare the
inputs and the oracle's answers, measure (schedule → store), and load a run back analyzed."""
from __future__ import annotations

import datetime as dt
import os
from dataclasses import asdict
from pathlib import Path

from parbench import metadata
from parbench.analyze import analyze
from parbench.escaping import styled
from parbench.plan import SCALE_DEFAULTS, Plan, Request
from parbench.project import RESULTS_DIR
from parbench.records import Case, RunRecord
from parbench.run import Runner, Settings
from parbench.runtimes import Runtime
from parbench.schedule import Execution, Progress, execute
from parbench.store import Store
from parbench.store.sink import StoreSink
from parbench.workloads import Workload

MEMORY_SHARE = 0.75          # a case may use this share of the machine's memory by default


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
            described[name] = runtime.description()
        except (RuntimeError, OSError, ValueError) as error:
            skipped.append(f"{name}: skipped — not runnable ({error}); build it with `parbench build --runtime {name}`")
            continue
        info[name] = described[name].info
    return described, info, skipped


def startup_cases(plan: Plan, described: dict) -> list[Case]:
    """One `noop` case per runtime in the plan: its boot and the harness's overhead, measured apart."""
    cases = []
    for name in dict.fromkeys(c.runtime for c in plan.cases):
        models = described[name].models_of("noop") if name in described else {}
        if models:
            cases.append(Case("noop", name, next(iter(models)), "seq", {}))
    return cases


def new_record(request: Request, runtimes_info: dict, kind: str = "suite") -> RunRecord:
    return RunRecord(id=None, started_at=now(), scale=request.scale, options=asdict(request),
                     machine=metadata.machine(), runtimes=runtimes_info, kind=kind)


def default_memory_limit_kb() -> int | None:
    try:
        total_kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                        if line.startswith("MemTotal"))
    except (OSError, StopIteration, ValueError):
        return None
    return int(total_kb * MEMORY_SHARE)


def settings_for(request: Request) -> Settings:
    limit = request.memory_limit_kb
    return Settings(processes=request.setting("processes"), warmup=request.setting("warmup"),
                    repeat=request.setting("repeat"), timeout=request.setting("timeout"),
                    budget=request.setting("budget"), target_ci=request.setting("target_ci"),
                    memory_limit_kb=default_memory_limit_kb() if limit is None else (limit or None),
                    order=request.order, seed=request.seed,
                    min_processes=min(SCALE_DEFAULTS[request.scale]["min_processes"], request.setting("processes")))


def prepare(cases: list[Case], runner) -> None:
    """Every input and every repetition's expected checksum (one per variant), before anything
    is stored: a full disk or a broken input says so before a run exists (InputError). Cases of
    no workload (exec's commands) have nothing to prepare."""
    for case in cases:
        if case.workload in runner.workloads:
            workload = runner.workloads[case.workload]
            warmup, repeat = runner.repetitions_per_process(case)
            for variant in workload.variants(case.params, warmup + repeat) or [None]:
                workload.expected_checksum(case.params, variant)
            workload.expected_items(case.params)


def measure(cases: list[Case], runner: Runner, store: Store, record: RunRecord,
            progress: Progress) -> tuple[Execution, StoreSink]:
    """Runs the cases into the stored run; returns what ran and the sink (its journal, its errors)."""
    sink = StoreSink(store, record, RESULTS_DIR / "journal")
    return execute(cases, runner, sink, progress), sink


def write_reports(record: RunRecord, out_dir: Path, analyses: list | None = None) -> list[Path]:
    """`--out DIR`: report.json and report.md, through the same exporters as --export-json/-markdown."""
    from parbench.export import by_name, write
    from parbench.export.base import Report
    out_dir.mkdir(parents=True, exist_ok=True)
    reports = [Report(record, analyses or [])]
    return [write(by_name(name), reports, str(out_dir / filename))
            for name, filename in (("json", "report.json"), ("markdown", "report.md"))]


def check_writable(out_dir: Path) -> str | None:
    """Why reports cannot be written to out_dir, or None; asked before a run starts."""
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        probe = out_dir / f".parbench-write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        return f"cannot write reports to {out_dir}: {error.strerror or error}"
    return None


def load_analyzed(store: Store, reference) -> RunRecord:
    """A stored run with its statistics recomputed from the raw samples (deterministic)."""
    record = store.load_run(store.resolve(reference))
    record.results = analyze([r.run for r in record.results], record.machine.get("logical_cpus"))
    return record


def all_analyses(store: Store, record: RunRecord) -> list[tuple[str, str, dict]]:
    """A run's stored sweep analyses, and those computed from any run (Amdahl from CPU and I/O shares, the
    start-up split), which are derived afresh so they always match the stored samples."""
    from parbench.analysis.derived import analyze_run, reanalyze
    from parbench.analysis.drift import drift
    fresh = reanalyze(record) if record.kind == "sweep" else []
    kinds = {kind for kind, _, _ in fresh}
    stored = [a for a in store.load_analyses(record.id) if a[0] not in kinds]
    readings = [result for kind, _, result in stored if kind == "sentinel"]
    sitting = drift(readings)
    stored = [a for a in stored if a[0] != "sentinel"]
    return ([("drift", "sitting", sitting.as_dict())] if sitting else []) + stored + fresh + analyze_run(record)


class SuiteKind:
    """`parbench run`: the plan of the request (or what an interrupted run still lacks)."""
    name = "suite"

    def __init__(self, request: Request | None, resume: str | None = None):
        self.request, self.resume = request, resume

    def configure(self, suite) -> None:
        from parbench.errors import PipelineError
        record = None
        done: set[str] = set()
        if self.resume:
            record, self.request = claim_for_resume(suite.store, self.resume)
            done = {r.case.key for r in record.results if r.run.status not in ("running", "interrupted")}
            suite.resumed = True
        try:
            suite.cases, info, runner = self._plan(suite, done)
        except PipelineError:
            if record is not None:
                suite.store.finish_run(record.id, "interrupted", now())
            raise
        suite.record = record or new_record(self.request, info)
        suite.runner = runner
        if self.resume:
            suite.output.console.print(f"Resuming run {record.id}: {len(suite.cases)} cases left", highlight=False)

    def _plan(self, suite, done: set[str]):
        from parbench import runtimes as runtimes_module
        from parbench.errors import PipelineError
        from parbench.plan import make_plan
        from parbench.workloads import SpecError, choose, load_all, with_noop
        workloads, runtimes = load_all(), runtimes_module.load_all()
        try:
            choose(self.request.workloads, workloads, "workload")
            wanted = choose(self.request.runtimes, runtimes, "runtime")
            described, info, skipped = describe_runtimes(runtimes, wanted)
            plan = make_plan(self.request, workloads, runtimes, described)
        except SpecError as error:
            raise PipelineError(str(error)) from None
        for line in skipped + plan.skipped:
            suite.output.console.print(styled(("skip", "yellow"), f" {line}"), highlight=False)
        if not plan.cases:
            raise PipelineError("nothing to run: no installed runtime offers the requested workload/model")
        cases = [c for c in startup_cases(plan, described) + plan.cases if c.key not in done]
        return cases, info, Runner(runtimes, with_noop(workloads), settings_for(self.request))

    def rounds(self, suite):
        yield suite.cases

    def analyses(self, record: RunRecord) -> list:
        return []

    def print_result(self, suite) -> None:
        from parbench.report import console as console_report
        console_report.print_run(suite.record, suite.output.console, suite.analyses, tables=False)


def claim_for_resume(store: Store, reference: str) -> tuple[RunRecord, Request]:
    """The run to finish, taken over from its dead owner; refused while its owner lives."""
    from parbench import liveness
    from parbench.errors import PipelineError
    from parbench.store.database import StoreError
    try:
        record = store.load_run(store.resolve(reference))
    except StoreError as error:
        raise PipelineError(str(error)) from None
    if record.kind != "suite":
        raise PipelineError(f"run {record.id} is a{'n' if record.kind == 'exec' else ''} {record.kind} run: "
                            f"`parbench run --resume` finishes suite runs only; start the {record.kind} again")
    owner = store.run_owner(record.id)
    if record.status == "complete":
        raise PipelineError(f"run {record.id} is complete: nothing to resume")
    if record.status == "running" and liveness.is_alive(owner, store.heartbeat_age(record.id)):
        raise PipelineError(f"run {record.id} is being measured right now by pid {liveness.owner_pid(owner)}; "
                            "wait for it, or stop it (Ctrl-C) and resume then")
    if not store.claim_run(record.id, liveness.owner_id(), owner):
        raise PipelineError(f"run {record.id} was just taken over by another parbench; nothing was run")
    request = Request(**{k: tuple(v) if isinstance(v, list) else v for k, v in record.options.items()
                         if k in Request.__dataclass_fields__})
    return record, request


def load_reports(store: Store, references: list[str]) -> list:
    """The runs asked for (default: the latest), analyzed, each once, as the exporters read them."""
    from parbench.export.base import Report
    reports: list = []
    for reference in references or [None]:
        record = load_analyzed(store, reference)
        if all(existing.record.id != record.id for existing in reports):
            reports.append(Report(record, all_analyses(store, record)))
    return reports
