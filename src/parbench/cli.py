"""The `parbench` command: doctor, list, build, run, show, history, compare, exec."""
from __future__ import annotations

import math
import os
import re
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from parbench import liveness, metadata
from parbench import runtimes as runtimes_module
from parbench import suite, workloads as workloads_module
from parbench.inputs import InputError
from parbench.plan import ORDERS, Request, make_plan
from parbench.project import DEFAULT_DB, RESULTS_DIR
from parbench.records import RunRecord
from parbench.run import Runner
from parbench.schedule import execute
from parbench.store import open_store
from parbench.store.database import StoreError, redact
from parbench.store.sink import DiskFull, StoreSink
from parbench.workloads import SpecError, parse_param_overrides, with_noop

# Piped output (CI logs, `| tee`) gets wide tables instead of rich's 80-column default.
console = Console(width=None if sys.stdout.isatty() else 200)
errors = Console(stderr=True, width=None if sys.stderr.isatty() else 200)


def fail(message: str, code: int = 2) -> None:
    errors.print(f"[bold red]error:[/] {message}", highlight=False)
    sys.exit(code)


def _csv_ints(text: str | None, option: str = "--workers") -> tuple[int, ...]:
    if not text:
        return ()
    try:
        values = tuple(int(v) for v in text.split(","))
    except ValueError:
        fail(f"{option} wants a comma list of positive integers, got '{text}'")
    if any(v < 1 for v in values):
        fail(f"{option} wants positive integers, got '{text}'")
    return values


class Seconds(click.ParamType):
    """A finite number of seconds within bounds (`inf`, `nan` and 1e12 are not durations)."""
    name = "SECONDS"

    def __init__(self, minimum: float = 0.1, maximum: float = 7 * 24 * 3600):
        self.minimum, self.maximum = minimum, maximum

    def convert(self, value, param, ctx):
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            self.fail(f"wants seconds, got '{value}'", param, ctx)
        if not math.isfinite(seconds) or not self.minimum <= seconds <= self.maximum:
            self.fail(f"wants seconds from {self.minimum:g} to {self.maximum:g}, got '{value}'", param, ctx)
        return seconds


def memory_limit_kb(text: str | None) -> int | None:
    """--memory-limit: '8G', '512M', '60%' of the machine, or 'none'; None means the default."""
    if text is None:
        return None
    if text.strip().lower() in ("none", "off", "0"):
        return 0
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(%|[KMGT]i?B?)?\s*", text, re.I)
    if not match:
        fail(f"--memory-limit wants a size like 8G or 512M, a share like 60%, or none; got '{text}'")
    number, unit = float(match.group(1)), (match.group(2) or "M").upper()[:1]
    if unit == "%":
        if not 0 < number <= 100:
            fail(f"--memory-limit wants a share from 1% to 100%, got '{text}'")
        return int((suite.default_memory_limit_kb() or 0) / suite.MEMORY_SHARE * number / 100)
    return int(number * {"K": 1, "M": 1024, "G": 1024 ** 2, "T": 1024 ** 3}[unit])


class OneLineErrors(click.Group):
    """Bad usage is one line and exit 2, like every other error parbench prints (not click's
    usage block), and Ctrl-C at any point is exit 130 without a traceback."""

    def main(self, *args, **kwargs):
        try:
            return super().main(*args, standalone_mode=False, **kwargs)
        except click.ClickException as error:
            command = f" ({error.ctx.command_path} -h for help)" if getattr(error, "ctx", None) else ""
            fail(f"{error.format_message()}{command}", code=error.exit_code)
        except (click.exceptions.Abort, KeyboardInterrupt):
            errors.print("interrupted", highlight=False)
            sys.exit(130)


@click.group(cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """parbench: which concurrency model and runtime wins for this work, on this machine."""


@main.command()
def doctor() -> None:
    """Each runtime: found or missing, its version, and the command that installs it."""
    table = Table(title="Runtimes", title_justify="left", header_style="bold")
    for column in ("runtime", "status", "version", "install / reason"):
        table.add_column(column, overflow="fold")
    for name, runtime in runtimes_module.load_all().items():
        if not runtime.available:
            table.add_row(name, "[red]missing[/]", "–", runtime.why_unavailable())
            continue
        try:
            runtime.describe(timeout=60)
            status = "[green]ready[/]"
        except (RuntimeError, OSError, ValueError):
            status = f"[yellow]not built[/] (parbench build --runtime {name})"
        table.add_row(name, status, runtime.version(), runtime.install)
    console.print(table)
    for tool, why in (("sqlite3", "results store (built into Python; the CLI is optional)"),
                      ("psql", "PostgreSQL cases and store (scripts/postgres-up starts the server)"),
                      ("chromium", "the HTML report's browser test"),
                      ("hyperfine", "optional: cross-checking `parbench exec`")):
        found = runtimes_module._on_path(tool)
        console.print(f"{'[green]found  [/]' if found else '[yellow]missing[/]'} {tool}: {why}", highlight=False)
    for engine, available, detail in _distributed_engines():
        console.print(f"{'[green]found  [/]' if available else '[yellow]missing[/]'} {engine}: {detail}",
                      highlight=False)


def _distributed_engines() -> list[tuple[str, bool, str]]:
    """The engines the `distributed` models run on, found or not, and how to get them."""
    import subprocess
    dask = subprocess.run([sys.executable, "-c", "import dask, distributed; print(distributed.__version__)"],
                          capture_output=True, text=True)
    epmd = runtimes_module._on_path("epmd") and runtimes_module._on_path("erl")
    return [("Dask distributed (python model `dask`)", dask.returncode == 0,
             f"distributed {dask.stdout.strip()}" if dask.returncode == 0 else
             "install with: .venv/bin/pip install 'distributed==2026.8.0' (make setup does)"),
            ("Erlang distribution (elixir model `distributed`, :peer nodes on 127.0.0.1)", epmd,
             "epmd and erl found (the case starts epmd if it is not running)" if epmd else
             "install with: apt-get install -y erlang-base")]


@main.command("list")
def list_command() -> None:
    """Workloads, runtimes and their models with each model's family."""
    for workload in workloads_module.load_all().values():
        scales = "; ".join(f"{s}: " + ", ".join(f"{k}={v}" for k, v in p.items())
                           for s, p in workload.scales.items())
        console.print(f"[bold]{workload.name}[/] — {workload.title}\n  {scales}", highlight=False)
    runtimes = runtimes_module.load_all()
    described, _, skipped = suite.describe_runtimes(runtimes, list(runtimes))
    table = Table(title="Models", title_justify="left", header_style="bold")
    for column in ("runtime", "workload", "model", "family", "workers", "note"):
        table.add_column(column, overflow="fold")
    for name, d in described.items():
        for workload, entry in d.get("workloads", {}).items():
            for model, info in entry.get("models", {}).items():
                table.add_row(name, workload, model, info.get("family", "?"),
                              "yes" if info.get("workers") else "", info.get("note", ""))
    console.print(table)
    for line in skipped:
        console.print(f"[yellow]{line}[/]", highlight=False)


@main.command()
@click.option("--runtime", "runtime_names", multiple=True, help="Only these runtimes (repeatable).")
def build(runtime_names: tuple[str, ...]) -> None:
    """Build every installed runtime's implementation (each impls/<runtime>/build)."""
    runtimes = runtimes_module.load_all()
    try:
        names = workloads_module.choose(runtime_names, runtimes, "runtime")
    except SpecError as error:
        fail(str(error))
    failed = []
    for name in names:
        runtime = runtimes[name]
        if not runtime.available:
            console.print(f"[yellow]skip[/] {name}: {runtime.why_unavailable()}", highlight=False)
            continue
        console.print(f"build {name} …", highlight=False)
        done = runtime.build()
        if done.returncode != 0:
            failed.append(name)
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
            console.print(f"[red]build {name} failed[/] (exit {done.returncode}):\n{tail}", highlight=False)
    if failed:
        fail(f"build failed for: {', '.join(failed)}", code=1)


def _export_options(command):
    """--export-<format> FILE for every registered format (`-` for standard output)."""
    from parbench.export import formats
    for exporter in reversed(formats()):
        command = click.option(f"--export-{exporter.name}", f"export_{exporter.name.replace('-', '_')}",
                               metavar="FILE", help=f"Write {exporter.description} to FILE ('-': stdout).")(command)
    return command


def _write_exports(reports, exports: dict) -> None:
    from parbench.export import by_name, write
    for option, target in exports.items():
        if not option.startswith("export_") or target is None:
            continue
        exporter = by_name(option[len("export_"):].replace("_", "-"))
        try:
            path = write(exporter, reports, target)
        except OSError as error:
            errors.print(f"[bold red]error:[/] cannot write {target}: {error.strerror or error}", highlight=False)
            sys.exit(1)
        if path is not None:
            errors.print(f"wrote {path}", highlight=False)


def _check_export_targets(exports: dict) -> None:
    """Every export file's folder is writable before anything runs."""
    for option, target in exports.items():
        if option.startswith("export_") and target not in (None, "-"):
            folder = Path(target).parent
            if problem := suite.check_writable(folder if str(folder) else Path(".")):
                fail(problem)


def _run_options(command):
    """The options `run` and every sweep share."""
    for option in reversed([
            click.option("--workload", "workloads", multiple=True, help="Only these workloads (repeatable)."),
            click.option("--runtime", "runtimes", multiple=True, help="Only these runtimes (repeatable)."),
            click.option("--model", "models", multiple=True, help="Only these models (repeatable)."),
            click.option("--scale", default="quick", show_default=True, help="smoke | quick | seed"),
            click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
                         help="Override a workload param; a comma list makes one case per value."),
            click.option("--processes", type=click.IntRange(1, 1000),
                         help="At most this many fresh processes per case (quick: 6; it stops earlier once precise)."),
            click.option("--warmup", type=click.IntRange(0, 1000), help="Untimed repetitions per process."),
            click.option("--repeat", type=click.IntRange(1, 10000), help="Timed repetitions per process."),
            click.option("--timeout", type=Seconds(), help="Seconds before a process is killed."),
            click.option("--budget", type=Seconds(0, 7 * 24 * 3600),
                         help="Seconds after which a case stops at 2 processes (quick: 8)."),
            click.option("--target-ci", type=click.FloatRange(0.001, 1), metavar="SHARE",
                         help="Stop a case once its median's 95% CI is within ±SHARE (quick: 0.03)."),
            click.option("--memory-limit", "memory_limit", metavar="SIZE",
                         help="Memory of one case's process tree: 8G, 512M, 60% or none (default: 75% of the machine)."),
            click.option("--order", type=click.Choice(ORDERS), default="interleaved", show_default=True,
                         help="How the processes of the cases of one table take turns."),
            click.option("--seed", "order_seed", type=click.IntRange(0), default=0,
                         help="The shuffle's seed (--order shuffled), stored with the run."),
            click.option("--db", default=str(DEFAULT_DB), show_default=True,
                         help="A SQLite file, sqlite:///path or a postgresql:// URL."),
            click.option("--out", "out_dir", type=click.Path(path_type=Path),
                         help="Write report.json and report.md here.")]):
        command = option(command)
    return command


def _request(scale, workloads, runtimes, models, params, workers, processes, warmup, repeat, timeout, budget,
             target_ci, memory_limit, order, order_seed, workers_option="--workers") -> Request:
    try:
        return Request(scale=scale, workloads=workloads, runtimes=runtimes, models=models,
                       params=parse_param_overrides(params), workers=_csv_ints(workers, workers_option),
                       processes=processes, warmup=warmup, repeat=repeat, timeout=timeout, budget=budget,
                       target_ci=target_ci, memory_limit_kb=memory_limit_kb(memory_limit), order=order,
                       seed=order_seed)
    except SpecError as error:
        fail(str(error))


STRICT_HELP = "Exit 3 if a case failed verification, crashed, hung or hit a limit (for CI)."


@main.command()
@_run_options
@click.option("--workers", help="Worker counts for models that take them, e.g. 1,2.")
@click.option("--resume", "resume", help="Finish an interrupted run (its id, or 'latest').")
@click.option("--strict", is_flag=True, help=STRICT_HELP)
@click.option("--save-baseline", "baseline", metavar="NAME", help="Name this run as a baseline for `compare --baseline`.")
@_export_options
def run(workloads, runtimes, models, scale, params, processes, warmup, repeat, workers, timeout,
        budget, target_ci, memory_limit, order, order_seed, db, out_dir, resume, strict, baseline, **exports) -> None:
    """Run the suite (or part of it), verify every result, store it and print the tables."""
    liveness.stop_like_ctrl_c()
    _check_export_targets(exports)
    store = _open(db)
    record = None
    if resume:
        record, request = _claim_for_resume(store, resume)
        done_keys = {r.case.key for r in record.results if r.run.status not in ("running", "interrupted")}
    else:
        request = _request(scale, workloads, runtimes, models, params, workers, processes, warmup, repeat,
                           timeout, budget, target_ci, memory_limit, order, order_seed)
        done_keys = set()
    all_workloads = workloads_module.load_all()
    all_runtimes = runtimes_module.load_all()
    try:
        workloads_module.choose(request.workloads, all_workloads, "workload")
        wanted = workloads_module.choose(request.runtimes, all_runtimes, "runtime")
        described, runtimes_info, skipped = suite.describe_runtimes(all_runtimes, wanted)
        plan = make_plan(request, all_workloads, all_runtimes, described)
    except SpecError as error:
        _release(store, record)
        fail(str(error))
    for line in skipped + plan.skipped:
        console.print(f"[yellow]skip[/] {line}", highlight=False)
    if not plan.cases:
        _release(store, record)
        fail("nothing to run: no installed runtime offers the requested workload/model")
    cases = [c for c in suite.startup_cases(plan, described) + plan.cases if c.key not in done_keys]
    if out_dir and (problem := suite.check_writable(out_dir)):
        _release(store, record)
        fail(problem)
    try:
        suite.prepare(cases, with_noop(all_workloads))
    except InputError as error:
        _release(store, record)
        fail(f"{error}; nothing was run", code=1)
    if resume:
        store.delete_unfinished_cases(record.id)
        console.print(f"Resuming run {record.id}: {len(cases)} cases left", highlight=False)
    else:
        record = suite.new_record(request, runtimes_info)
        try:
            store.begin_run(record, liveness.owner_id())
        except Exception as error:      # noqa: BLE001 — any store error: nothing has run yet
            fail(f"cannot write a new run to {redact(db)}: {error} (is the disk full?); nothing was run", code=1)
    runner = Runner(all_runtimes, with_noop(all_workloads), suite.settings_for(request))
    _measure_and_report(store, record, cases, runner, db, out_dir, resume_hint=f"parbench run --resume {record.id}",
                        strict=strict, baseline=baseline, exports=exports)


def _measure_and_report(store, record, cases, runner, db, out_dir, resume_hint: str | None,
                        analyses_of=None, strict: bool = False, baseline: str | None = None,
                        exports: dict | None = None) -> None:
    """Measure (printing each case and table as it completes), close the run, print the answer."""
    from parbench.report.live import live_progress
    cores = os.cpu_count()
    db_flag = "" if db == str(DEFAULT_DB) else f" --db {redact(db)}"
    try:
        execution, sink = suite.measure(cases, runner, store, record, live_progress(console, cores))
    except DiskFull as error:
        _try_finish(store, record.id, "interrupted")
        fail(f"{error}. Every case measured before it is stored in {redact(db)}; free some space and "
             f"resume with: {resume_hint}{db_flag}", code=1)
    status = "interrupted" if execution.interrupted else "complete"
    _try_finish(store, record.id, status, sink.journal if sink.journal.count else None)
    try:
        full = suite.load_analyzed(store, record.id)
    except Exception as error:      # noqa: BLE001 — the store is gone: the journal says where the cases are
        fail(f"the run's cases could not be read back from {redact(db)} ({error}); "
             + (f"{sink.journal.count} are kept in {sink.journal.path}: parbench load {sink.journal.path}{db_flag}"
                if sink.journal.count else "they are stored; `parbench show` prints them once it is back"), code=1)
    if analyses_of is not None:
        for kind, subject, result in analyses_of(full):
            store.add_analysis(record.id, kind, subject, result)
    analyses = suite.all_analyses(store, full)
    _print_and_export(full, analyses, out_dir, tables=False)
    console.print(f"stored as run {record.id} in {redact(db)}", highlight=False)
    _write_exports([_report(full, analyses)], exports or {})
    if baseline:
        store.save_baseline(baseline, record.id, suite.now())
        console.print(f"saved as baseline '{baseline}'", highlight=False)
    if sink.journal.count:
        errors.print(f"{sink.journal.count} case(s) could not be stored in {redact(db)} ({sink.errors[-1]}); "
                     f"they are kept in {sink.journal.path}. Load them with: parbench load {sink.journal.path}"
                     f"{db_flag}", highlight=False)
    if execution.interrupted:
        hint = f" Resume with: {resume_hint}{db_flag}" if resume_hint else ""
        errors.print(f"Interrupted: {len(full.results)} cases are stored in run {record.id}.{hint}", highlight=False)
        sys.exit(liveness.exit_code_of(execution.interruption))
    _exit_for_failures(full, strict)


def _report(record, analyses):
    from parbench.export import Report
    return Report(record, analyses)


EXIT_FAILED_CASE = 3


def _exit_for_failures(record, strict: bool) -> None:
    """With --strict, a case without a verified timing is exit 3 (a CI gate); else it is only reported."""
    failed = [r for r in record.results if r.run.status != "ok"]
    if strict and failed:
        errors.print(f"{len(failed)} case(s) without a verified timing (--strict): "
                     + ", ".join(f"{r.case.key} ({r.run.status})" for r in failed[:5])
                     + (" …" if len(failed) > 5 else ""), highlight=False)
        sys.exit(EXIT_FAILED_CASE)


def _try_finish(store, run_id: int, status: str, journal=None) -> None:
    """The run's end in the store; else in its journal, if it has one."""
    from parbench.store.sink import retrying
    finished_at = suite.now()
    try:
        retrying(store, lambda: store.finish_run(run_id, status, finished_at), delays=(1, 2, 4))
    except Exception:      # noqa: BLE001 — the run stays 'running' with a dead owner: the next start marks it
        if journal is not None:
            journal.finish(status, finished_at)


def _claim_for_resume(store, reference: str):
    """The run to finish, taken over from its dead owner; refused while its owner lives."""
    try:
        record = store.load_run(store.resolve(reference))
    except StoreError as error:
        fail(str(error))
    if record.kind != "suite":
        fail(f"run {record.id} is a{'n' if record.kind == 'exec' else ''} {record.kind} run: "
             f"`parbench run --resume` finishes suite runs only; start the {record.kind} again")
    owner = store.run_owner(record.id)
    if record.status == "complete":
        fail(f"run {record.id} is complete: nothing to resume")
    if record.status == "running" and liveness.is_alive(owner):
        fail(f"run {record.id} is being measured right now by pid {liveness.owner_pid(owner)}; "
             "wait for it, or stop it (Ctrl-C) and resume then")
    if not store.claim_run(record.id, liveness.owner_id(), owner):
        fail(f"run {record.id} was just taken over by another parbench; nothing was run")
    request = Request(**{k: tuple(v) if isinstance(v, list) else v for k, v in record.options.items()
                         if k in Request.__dataclass_fields__})
    return record, request


def _release(store, record) -> None:
    """A claimed run goes back to `interrupted` when the resume stops before measuring."""
    if record is not None:
        _try_finish(store, record.id, "interrupted")


def _print_and_export(record, analyses: list, out_dir: Path | None, tables: bool = True,
                      summary: bool = True) -> None:
    """The console report, and report.json / report.md when --out was given."""
    from parbench.report import console as console_report
    if summary:
        console_report.print_run(record, console, analyses, tables=tables)
    if out_dir:
        try:
            for path in suite.write_reports(record, out_dir, analyses):
                console.print(f"wrote {path}", highlight=False)
        except OSError as error:
            errors.print(f"[bold red]error:[/] cannot write reports to {out_dir}: {error.strerror or error}; "
                         f"the run is stored as run {record.id}", highlight=False)


def _open(db: str):
    """The store, after marking any run whose harness died as interrupted (with its resume line)."""
    try:
        store = open_store(db)
    except StoreError as error:
        fail(str(error))
    try:
        running = store.running_runs()
    except Exception:      # noqa: BLE001 — an older or foreign database: nothing to mark
        return store
    for run_id, owner in running:
        if not liveness.is_alive(owner):
            store.finish_run(run_id, "interrupted", suite.now())
            errors.print(f"run {run_id} was interrupted (its parbench, pid {liveness.owner_pid(owner)}, is gone); "
                         f"resume with: parbench run --resume {run_id}"
                         + ("" if db == str(DEFAULT_DB) else f" --db {redact(db)}"), highlight=False)
    return store


@main.command()
@click.argument("journal", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--db", default=str(DEFAULT_DB), show_default=True)
def load(journal, db) -> None:
    """Store the cases a run kept in its journal while its store could not take them."""
    from parbench.records import RunRecord
    from parbench.store.sink import read_journal
    store = _open(db)
    try:
        entries = read_journal(journal)
    except (ValueError, KeyError) as error:
        fail(f"{journal} is not a parbench journal: {error}")
    targets: dict[int, int] = {}       # the journal's run id → the run that holds its cases here
    for header, case, finish in entries:
        if header["id"] not in targets:
            targets[header["id"]] = _run_for(store, header)
        run_id = targets[header["id"]]
        if case is not None:
            store.replace_case(run_id, case)
        if finish is not None:
            store.finish_run(run_id, finish["status"], finish["finished_at"])
    cases = sum(1 for _, case, _ in entries if case is not None)
    console.print(f"loaded {cases} case(s) from {journal} into run(s) {', '.join(map(str, sorted(set(targets.values()))))}"
                  f" of {redact(db)}", highlight=False)


def _run_for(store, header: dict) -> int:
    """The same run if this store has it (same id and start), else a new one with its metadata."""
    from parbench.records import RunRecord
    try:
        existing = store.load_run(header["id"])
        if existing.started_at == header["started_at"]:
            return existing.id
    except StoreError:
        pass
    record = RunRecord(**{k: v for k, v in header.items() if k in RunRecord.__dataclass_fields__ and k != "id"},
                       id=None)
    return store.begin_run(record)


@main.command()
@click.argument("run_ref", required=False)
@click.option("--db", default=str(DEFAULT_DB), show_default=True)
@click.option("--out", "out_dir", type=click.Path(path_type=Path), help="Also write report.json and report.md.")
@_export_options
def show(run_ref, db, out_dir, **exports) -> None:
    """Re-print a stored run (default: the latest) without re-running anything."""
    _check_export_targets(exports)
    store = _open(db)
    try:
        record = suite.load_analyzed(store, run_ref)
    except StoreError as error:
        fail(str(error))
    analyses = suite.all_analyses(store, record)
    _print_and_export(record, analyses, out_dir)
    _write_exports([_report(record, analyses)], exports)


@main.command()
@click.option("--db", default=str(DEFAULT_DB), show_default=True)
def history(db) -> None:
    """Every stored run: id, kind, when, status, scale, number of cases."""
    table = Table(header_style="bold")
    for column in ("run", "kind", "started", "status", "scale", "cases"):
        table.add_column(column)
    for row in _open(db).runs_summary():
        table.add_row(*map(str, row))
    console.print(table)


@main.command()
@click.argument("runs", nargs=-1)
@click.option("--baseline", metavar="NAME", help="Compare against the run saved as NAME (run --save-baseline).")
@click.option("--machine", "machines", multiple=True, metavar="HOST",
              help="The newest complete run of that machine (a fleet's store); give two.")
@click.option("--db", default=str(DEFAULT_DB), show_default=True)
@click.option("--fail-on-regression", "threshold", type=click.FloatRange(0, 1e6), metavar="PCT",
              help="Exit 1 if a case of B is significantly slower than in A by more than PCT %.")
def compare(runs, baseline, machines, db, threshold) -> None:
    """Per case: B's median against A's, with a 95% CI; 'no significant difference' where so.

    \b
    parbench compare 11 12                   two stored runs (ids, latest, latest~1)
    parbench compare --baseline main         the latest run against the baseline 'main'
    parbench compare --baseline main 14      run 14 against it
    parbench compare a.json b.json           two --export-json files, no store needed
    parbench compare --machine ci-2core --machine ci-16core     two machines of one store
    """
    from parbench.report import compare_runs
    a, b = _comparands(runs, baseline, machines, db)
    rows = compare_runs.pair_cases(a, b)
    compare_runs.print_comparison(a, b, rows, console)
    if threshold is not None:
        worst = compare_runs.regressions(rows, threshold)
        if worst:
            errors.print(f"{len(worst)} case(s) regressed by more than {threshold:g} %: "
                         + ", ".join(r.key for r in worst), highlight=False)
            sys.exit(1)


def _comparands(runs: tuple[str, ...], baseline: str | None, machines: tuple[str, ...], db: str):
    """(A, B) from two export files, or from the store: ids, a baseline, or two machines."""
    from parbench.analyze import analyze
    from parbench.export import json_format
    if runs and all(r.endswith(".json") for r in runs):
        if len(runs) != 2 or baseline or machines:
            fail("compare of exported files takes exactly two .json files (and no --baseline or --machine)")
        records = []
        for path in runs:
            try:
                record = json_format.read(Path(path))[-1]
            except json_format.NotAnExport as error:
                fail(str(error))
            record.results = analyze([r.run for r in record.results], record.machine.get("logical_cpus"))
            records.append(record)
        return records[0], records[1]
    store = _open(db)
    try:
        if machines:
            if len(machines) != 2 or runs or baseline:
                fail("--machine takes two machines (--machine A --machine B) and no run ids")
            refs = [store.latest_run_on(host) for host in machines]
        elif baseline:
            if len(runs) > 1:
                fail("--baseline NAME compares one run (default: the latest) against it")
            refs = [store.baseline(baseline), runs[0] if runs else "latest"]
        elif len(runs) == 2:
            refs = list(runs)
        else:
            fail("compare wants two runs (A B), --baseline NAME [B], two .json exports, or --machine A --machine B")
        return suite.load_analyzed(store, refs[0]), suite.load_analyzed(store, refs[1])
    except StoreError as error:
        fail(str(error))


@main.command(name="exec")
@click.argument("commands", nargs=-1, required=True)
@click.option("-w", "--warmup", type=click.IntRange(0, 10000), default=0, show_default=True,
              help="Untimed runs of each command first (the first fixes its reference output).")
@click.option("-r", "--runs", type=click.IntRange(2, 1_000_000), help="Exactly this many timed runs per command.")
@click.option("-m", "--min-runs", type=click.IntRange(2, 1_000_000), help="At least this many runs (default 10).")
@click.option("-M", "--max-runs", type=click.IntRange(2, 1_000_000), help="At most this many runs.")
@click.option("-L", "--parameter-list", "parameter_lists", nargs=2, multiple=True, metavar="NAME VALUES",
              help="Run each command once per value of a comma list, for {NAME}; repeatable (a product).")
@click.option("--param-list", "old_parameter_list", nargs=2, metavar="NAME VALUES", hidden=True)
@click.option("-P", "--parameter-scan", nargs=3, metavar="NAME MIN MAX", help="{NAME} from MIN to MAX.")
@click.option("-D", "--parameter-step-size", "step", metavar="STEP", help="The step of --parameter-scan (default 1).")
@click.option("-p", "--prepare", multiple=True, metavar="CMD",
              help="Run before each timed run (once, or once per command in order).")
@click.option("-s", "--setup", metavar="CMD", help="Run once before each command's runs.")
@click.option("-c", "--cleanup", metavar="CMD", help="Run once after each command's runs.")
@click.option("--conclude", metavar="CMD", help="Run after each timed run.")
@click.option("-S", "--shell", default="sh", show_default=True,
              help="The shell that runs each command; 'none' runs it without a shell (-N).")
@click.option("-N", "no_shell", is_flag=True, help="No shell: the command is split into words and run directly.")
@click.option("-i", "--ignore-failure", is_flag=True, help="Count runs whose command exits non-zero.")
@click.option("--show-output", is_flag=True, help="Print the commands' standard output.")
@click.option("-u", "--time-unit", type=click.Choice(["microsecond", "millisecond", "second"]),
              help="The unit of the times printed.")
@click.option("-n", "--command-name", "names", multiple=True, help="A name per command, in order.")
@click.option("--reference", metavar="CMD", help="Compare every command against this one (default: the fastest).")
@click.option("--expect", help="Each run's stdout (stripped) must equal this, or the timing is rejected.")
@click.option("--output-varies", is_flag=True, help="Accept runs whose stdout differs from the first run's.")
@click.option("--timeout", type=Seconds(), default=600, show_default=True, help="Seconds before a run is killed.")
@click.option("--memory-limit", "memory_limit", metavar="SIZE", help="Memory of a run's process tree (default 75%).")
@click.option("--order", type=click.Choice(ORDERS), default="interleaved", show_default=True,
              help="How the commands' runs take turns.")
@click.option("--seed", "order_seed", type=click.IntRange(0), default=0, help="The shuffle's seed (--order shuffled).")
@click.option("--save-baseline", "baseline", metavar="NAME", help="Name this run as a baseline.")
@click.option("--db", default=str(DEFAULT_DB), show_default=True)
@click.option("--out", "out_dir", type=click.Path(path_type=Path))
@_export_options
def exec_command(commands, warmup, runs, min_runs, max_runs, parameter_lists, old_parameter_list, parameter_scan,
                 step, prepare, setup, cleanup, conclude, shell, no_shell, ignore_failure, show_output, time_unit,
                 names, reference, expect, output_varies, timeout, memory_limit, order, order_seed, baseline, db,
                 out_dir, **exports) -> None:
    """Measure and compare commands like hyperfine does: parbench exec 'cmd A' 'cmd B' …

    Each argument is one command, run through `sh -c` (or --shell; -N for none) in a fresh process
    tree (wall, user and system CPU, the whole tree's peak memory). Values substituted for
    {NAME} are shell-quoted, so a value is never run as shell syntax. A run counts only if it
    exits 0 and prints what the command's first run printed (or --expect). The commands' runs
    take turns, and every command is compared with the fastest (or --reference) with a 95% CI.
    """
    from parbench import exec_command as measure
    from parbench.report.live import live_progress
    liveness.stop_like_ctrl_c()
    _check_export_targets(exports)
    commands = list(commands) + ([reference] if reference and reference not in commands else [])
    options = measure.ExecOptions(
        commands=commands, names=list(names), shell="none" if no_shell else shell,
        parameter_lists=[(name, values.split(",")) for name, values in
                         list(parameter_lists) + ([old_parameter_list] if old_parameter_list else [])],
        parameter_scan=parameter_scan, step=step, prepare=list(prepare), setup=setup, cleanup=cleanup,
        conclude=conclude, ignore_failure=ignore_failure, show_output=show_output, expect=expect,
        output_varies=output_varies, reference=reference)
    try:
        planned = measure.commands_for(options)
        settings = measure.settings_for(runs, min_runs, max_runs, timeout, _memory_limit_for_exec(memory_limit),
                                        order, order_seed)
    except measure.ExecError as error:
        fail(str(error))
    if out_dir and (problem := suite.check_writable(out_dir)):
        fail(problem)
    store = _open(db)
    record = RunRecord(id=None, started_at=suite.now(), scale="exec", kind="exec", machine=metadata.machine(),
                       runtimes={}, options=measure.options_record(options, {
                           "warmup": warmup, "runs": runs, "min_runs": min_runs, "max_runs": max_runs,
                           "timeout": timeout, "order": order, "seed": order_seed, "time_unit": time_unit}))
    try:
        store.begin_run(record, liveness.owner_id())
    except Exception as error:      # noqa: BLE001
        fail(f"cannot write a new run to {redact(db)}: {error}; nothing was run", code=1)
    runner = measure.ExecRunner(planned, options, settings, warmup,
                                echo=lambda chunk: sys.stdout.buffer.write(chunk))
    cases = runner.cases
    sink = StoreSink(store, record, RESULTS_DIR / "journal")
    execution = execute(cases, runner, sink, live_progress(console, os.cpu_count(), tables=False))
    status = "interrupted" if execution.interrupted else "complete"
    _try_finish(store, record.id, status, sink.journal if sink.journal.count else None)
    full = suite.load_analyzed(store, record.id)
    from parbench.report.exec_summary import print_exec
    print_exec(full, console, reference_label=_reference_label(planned, reference), unit=time_unit)
    _print_and_export(full, [], out_dir, tables=False, summary=False) if out_dir else None
    _write_exports([_report(full, [])], exports)
    if baseline:
        store.save_baseline(baseline, record.id, suite.now())
    console.print(f"stored as run {record.id} in {redact(db)}", highlight=False)
    if execution.interrupted:
        sys.exit(liveness.exit_code_of(execution.interruption))
    _exit_for_failures(full, strict=True)


def _reference_label(planned, reference: str | None) -> str | None:
    if reference is None:
        return None
    return next((c.label for c in planned if c.display == reference or c.label == reference), None)


def _memory_limit_for_exec(text: str | None) -> int | None:
    limit = memory_limit_kb(text)
    return suite.default_memory_limit_kb() if limit is None else (limit or None)


@main.command()
@click.argument("kind", type=click.Choice(["workers", "size", "tasks"]))
@_run_options
@click.option("--workers", help="workers: the counts to run (default: 1, 2, 4 … up to the logical CPUs).")
@click.option("--from", "start", type=click.FloatRange(1, 1e15), default=64, show_default=True,
              help="size: the smallest value.")
@click.option("--to", "stop", type=click.FloatRange(1, 1e15), help="size: the largest value (default: the scale's).")
@click.option("--factor", type=click.FloatRange(1.1, 1e6), default=4, show_default=True, help="size: geometric step.")
@click.option("--refine", type=click.IntRange(0, 20), default=2, show_default=True,
              help="size: bisection steps near each crossing.")
@click.option("--counts", help="tasks: the counts to run, e.g. 10000,40000,100000,400000,1000000.")
@click.option("--strict", is_flag=True, help=STRICT_HELP)
@_export_options
def sweep(kind, workloads, runtimes, models, scale, params, processes, warmup, repeat, timeout, budget,
          target_ci, memory_limit, order, order_seed, db, out_dir, workers, start, stop, factor, refine,
          counts, strict, **exports) -> None:
    """Sweep workers (speedup, Amdahl and USL fits), input size (the crossover where parallel
    starts to win) or task count (time and bytes per task, the largest count that ran)."""
    from parbench import sweep as sweeping
    from parbench.report.live import live_progress
    liveness.stop_like_ctrl_c()
    _check_export_targets(exports)
    store = _open(db)
    request = _request(scale, workloads, runtimes, models, params, workers, processes, warmup, repeat,
                       timeout, budget, target_ci, memory_limit, order, order_seed)
    counts_given = _csv_ints(counts, "--counts")
    all_workloads = workloads_module.load_all()
    all_runtimes = runtimes_module.load_all()
    cores = os.cpu_count() or 1
    try:
        chosen = workloads_module.choose(workloads, all_workloads, "workload")
        wanted = workloads_module.choose(runtimes, all_runtimes, "runtime")
        described, _, skipped = suite.describe_runtimes(all_runtimes, wanted)
        for line in skipped:
            console.print(f"[yellow]skip[/] {line}", highlight=False)
        if not described:
            fail("no installed runtime to sweep")
        make_plan(request, all_workloads, all_runtimes, described)       # validates names early
        if kind != "workers" and len(chosen) != 1:
            fail(f"a {kind} sweep varies one workload's param: pick one with --workload ({', '.join(chosen)})")
        workload = all_workloads[chosen[0]]
        if kind == "workers":
            request.workers = request.workers or tuple(sorted({2 ** i for i in range(int(math.log2(cores)) + 1)} | {cores}))
            strategy = sweeping.workers_strategy(cores)
        elif kind == "size":
            top = stop or _largest(workload.scales[scale][workload.swept_param])
            if top < start:
                fail(f"--to ({top:g}) is below --from ({start:g}): a size sweep goes up")
            request.models = _with_seq(request.models, described, workload.name)
            strategy = sweeping.size_strategy(workload.swept_param, sweeping.geometric(start, top, factor), refine)
        else:
            values = list(counts_given) or sweeping.geometric(
                _largest(workload.scales["smoke"][workload.swept_param]),
                _largest(workload.scales[scale][workload.swept_param]), 4)
            strategy = sweeping.tasks_strategy(workload.swept_param, values)
        if out_dir and (problem := suite.check_writable(out_dir)):
            fail(problem)
        running = sweeping.Sweep(strategy, request, all_workloads, all_runtimes, described, store,
                                 live_progress(console, cores))
        for params in strategy.rounds:     # every round's plan is valid before anything runs
            running.plan_round(params, first=False)
    except SpecError as error:
        fail(str(error))
    try:
        running.begin(liveness.owner_id())
        execution = running.run()
    except InputError as error:
        fail(f"{error}; nothing more was run", code=1)
    except DiskFull as error:
        _try_finish(store, running.record.id, "interrupted")
        fail(f"{error}. Every case measured before it is stored in {redact(db)}.", code=1)
    _try_finish(store, running.record.id, "interrupted" if execution.interrupted else "complete")
    record = suite.load_analyzed(store, running.record.id)
    for analysis_kind, subject, result in strategy.analyze(record):
        store.add_analysis(record.id, analysis_kind, subject, result)
    analyses = suite.all_analyses(store, record)
    _print_and_export(record, analyses, out_dir, tables=False)
    console.print(f"stored as run {record.id} in {redact(db)}", highlight=False)
    _write_exports([_report(record, analyses)], exports)
    if execution.interrupted:
        errors.print(f"Interrupted: what was measured is stored in run {record.id}.", highlight=False)
        sys.exit(liveness.exit_code_of(execution.interruption))
    _exit_for_failures(record, strict)


def _largest(value) -> int:
    return max(value) if isinstance(value, list) else value


def _with_seq(models: tuple[str, ...], described: dict, workload: str) -> tuple[str, ...]:
    """A size sweep compares against seq: named models get each runtime's seq model too."""
    if not models:
        return models
    offered = {name: m for d in described.values()
               for name, m in d.get("workloads", {}).get(workload, {}).get("models", {}).items()}
    seqs = tuple(name for name, m in offered.items() if m.get("family") == "seq" and name not in models)
    return tuple(models) + seqs


@main.command()
@click.argument("run_refs", nargs=-1)
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Write one self-contained HTML page (tables, plots, seeds, metadata) here.")
@click.option("--db", default=str(DEFAULT_DB), show_default=True)
def report(run_refs, html_path, db) -> None:
    """Write the HTML report of stored runs (default: the latest; several runs make one page)."""
    from parbench.report import html
    store = _open(db)
    try:
        path = html.write_report(store, list(run_refs), html_path)
    except StoreError as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot write {html_path}: {error}", code=1)
    console.print(f"wrote {path}", highlight=False)


if __name__ == "__main__":
    main()
