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

from parbench import liveness, pipeline
from parbench.escaping import CONSOLE_OPTIONS, console as console_text, is_valid_unicode, one_line, styled
from parbench import runtimes as runtimes_module
from parbench import suite, workloads as workloads_module
from parbench.plan import ORDERS, Request, make_plan
from parbench.project import DEFAULT_DB
from parbench.store import open_store
from parbench.store.database import StoreError, redact
from parbench.workloads import SpecError, parse_param_overrides

# Piped output (CI logs, `| tee`) gets wide tables instead of rich's 80-column default.
# Markup off: names, stderr tails and commands from outside print as written (escaping.py).
console = Console(width=None if sys.stdout.isatty() else 200, **CONSOLE_OPTIONS)
errors = Console(stderr=True, width=None if sys.stderr.isatty() else 200, **CONSOLE_OPTIONS)


def fail(message: str, code: int = 2) -> None:
    # One line whatever the message quotes: a newline in an argument is shown as \n.
    errors.print(styled(("error:", "bold red"), " " + one_line(message)),
                 highlight=False, soft_wrap=True)      # one line, never folded
    sys.exit(code)


# The documented bounds of the comma lists (README): a worker count a machine can schedule, a
# task count a process can hold.
CSV_INT_BOUNDS = {"--workers": 4096, "--counts": 10 ** 9}


def _csv_ints(text: str | None, option: str = "--workers") -> tuple[int, ...]:
    if not text:
        return ()
    most = CSV_INT_BOUNDS.get(option, 4096)
    try:
        values = tuple(int(v) for v in text.split(",") if v.strip().isascii())
    except ValueError:
        values = ()
    if len(values) != len(text.split(",")):
        fail(f"{option} wants a comma list of positive integers, got {ascii(text)[:80]}")
    if any(not 1 <= v <= most for v in values):
        fail(f"{option} wants integers from 1 to {most:,}, got {ascii(text)[:80]}")
    return values


class FiniteRange(click.FloatRange):
    """click's FloatRange without NaN (which every comparison lets through) or ±Infinity."""

    def convert(self, value, param, ctx):
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"wants a finite number, got '{value}'", param, ctx)
        return number


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


MEMORY_LIMIT_KB = (1024, 1024 ** 4)        # 1 MiB … 1 PiB, in KiB


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
        if not 1 <= number <= 100:
            fail(f"--memory-limit wants a share from 1% to 100%, got '{text}'")
        return int((suite.default_memory_limit_kb() or 0) / suite.MEMORY_SHARE * number / 100)
    kb = int(number * {"K": 1, "M": 1024, "G": 1024 ** 2, "T": 1024 ** 3}[unit])
    if not MEMORY_LIMIT_KB[0] <= kb <= MEMORY_LIMIT_KB[1]:
        # 0.4K would be int 0, which means no limit at all; a limit is a limit or `none`.
        fail(f"--memory-limit wants a size from 1M to 1024T (or none), got '{text}'")
    return kb


class OneLineErrors(click.Group):
    """Bad usage is one line and exit 2, like every other error parbench prints (not click's
    usage block), and Ctrl-C at any point is exit 130 without a traceback."""

    def main(self, *args, **kwargs):
        try:
            return super().main(*args, standalone_mode=False, **kwargs)
        except click.ClickException as error:
            command = f" ({error.ctx.command_path} -h for help)" if getattr(error, "ctx", None) else ""
            fail(f"{error.format_message()}{command}", code=error.exit_code)
        except (click.exceptions.Abort, KeyboardInterrupt) as interruption:
            errors.print("interrupted", highlight=False)
            sys.exit(liveness.exit_code_of(interruption))

    def parse_args(self, ctx, args):
        # Bytes that are not UTF-8 arrive as lone surrogates, which no store, export or
        # terminal can take: refused here, once, for every command and option.
        bad = next((a for a in args if not is_valid_unicode(a)), None)
        if bad is not None:
            raise click.UsageError(f"the argument {ascii(bad)[:60]} is not valid UTF-8 text", ctx)
        return super().parse_args(ctx, args)


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
            table.add_row(name, styled(("missing", "red")), "–", console_text(runtime.why_unavailable()))
            continue
        try:
            runtime.describe(timeout=60)
            status = styled(("ready", "green"))
        except (RuntimeError, OSError, ValueError):
            status = styled(("not built", "yellow"), f" (parbench build --runtime {name})")
        table.add_row(name, status, console_text(runtime.version()), runtime.install)
    console.print(table)
    for tool, why in (("sqlite3", "results store (built into Python; the CLI is optional)"),
                      ("psql", "PostgreSQL cases and store (scripts/postgres-up starts the server)"),
                      ("chromium", "the HTML report's browser test"),
                      ("hyperfine", "optional: cross-checking `parbench exec`")):
        found = runtimes_module._on_path(tool)
        console.print(styled(("found  ", "green") if found else ("missing", "yellow"), f" {tool}: {why}"), highlight=False)
    for engine, available, detail in _distributed_engines():
        console.print(styled(("found  ", "green") if available else ("missing", "yellow"), f" {engine}: {detail}"),
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
        console.print(styled((workload.name, "bold"), f" — {workload.title}\n  {scales}"), highlight=False)
    runtimes = runtimes_module.load_all()
    described, _, skipped = suite.describe_runtimes(runtimes, list(runtimes))
    table = Table(title="Models", title_justify="left", header_style="bold")
    for column in ("runtime", "workload", "model", "family", "workers", "note"):
        table.add_column(column, overflow="fold")
    kernels = Table(title="Kernel classes (--param kernel=portable|tuned; portable is every scale's default)",
                    title_justify="left", header_style="bold")
    for column in ("runtime", "workload", "kernel", "what runs"):
        kernels.add_column(column, overflow="fold")
    for name, d in described.items():
        for workload, offer in d.workloads.items():
            for model in offer.models.values():
                table.add_row(name, workload, model.name, model.family, "yes" if model.workers else "", model.note)
            for kernel, detail in offer.kernels.items():
                kernels.add_row(name, workload, kernel, detail)
    console.print(table)
    console.print(kernels)
    for line in skipped:
        console.print(styled((line, "yellow")), highlight=False)


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
            console.print(styled(("skip", "yellow"), f" {name}: {runtime.why_unavailable()}"), highlight=False)
            continue
        console.print(f"build {name} …", highlight=False)
        done = runtime.build()
        if done.returncode != 0:
            failed.append(name)
            tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
            console.print(styled((f"build {name} failed", "red"), f" (exit {done.returncode}):\n{tail}"), highlight=False)
    if failed:
        fail(f"build failed for: {', '.join(failed)}", code=1)


def _export_options(command):
    """--export-<format> FILE for every registered format (`-` for standard output)."""
    from parbench.export import formats
    for exporter in reversed(formats()):
        command = click.option(f"--export-{exporter.name}", f"export_{exporter.name.replace('-', '_')}",
                               metavar="FILE", help=f"Write {exporter.description} to FILE ('-': stdout).")(command)
    return command


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
                         help="At most this many fresh processes per case (quick: 5; it stops earlier once precise)."),
            click.option("--warmup", type=click.IntRange(0, 1000), help="Untimed repetitions per process."),
            click.option("--repeat", type=click.IntRange(1, 10000), help="Timed repetitions per process."),
            click.option("--timeout", type=Seconds(), help="Seconds before a process is killed."),
            click.option("--budget", type=Seconds(0, 7 * 24 * 3600),
                         help="Seconds after which a case stops at 2 processes (quick: 4)."),
            click.option("--target-ci", type=FiniteRange(0.001, 1), metavar="SHARE",
                         help="Stop a case once its median's 95% CI is within ±SHARE (quick: 0.03)."),
            click.option("--memory-limit", "memory_limit", metavar="SIZE",
                         help="Memory of one case's process tree: 8G, 512M, 60% or none (default: 75% of the machine)."),
            click.option("--order", type=click.Choice(ORDERS), default="interleaved", show_default=True,
                         help="How the processes of the cases of one table take turns."),
            click.option("--seed", "order_seed", type=click.IntRange(0, (1 << 63) - 1), default=0,
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
    request = None if resume else _request(scale, workloads, runtimes, models, params, workers, processes, warmup,
                                           repeat, timeout, budget, target_ci, memory_limit, order, order_seed)
    _pipeline(suite.SuiteKind(request, resume), db, out_dir, exports, baseline, strict)


def _pipeline(kind, db: str, out_dir, exports: dict, baseline: str | None, strict: bool) -> None:
    """The CLI's whole part in a measurement: the pipeline, its errors as one line, its exit code."""
    from parbench.report.live import live_progress
    liveness.stop_like_ctrl_c()
    _check_export_targets(exports)
    store = _open(db)
    output = pipeline.Output(console, errors, db, out_dir, exports, baseline, strict)
    try:
        done = pipeline.run(pipeline.Suite(kind, store, output),
                            live_progress(console, os.cpu_count(), tables=kind.name != "exec"))
    except pipeline.PipelineError as error:
        fail(str(error), code=error.code)
    except OSError as error:           # an export or report file that could not be written
        fail(str(error), code=1)
    sys.exit(done.exit_code)


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
            errors.print(styled(("error:", "bold red"), f" cannot write reports to {out_dir}: {error.strerror or error}; "
                                f"the run is stored as run {record.id}"), highlight=False)


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
    for run_id, owner, heartbeat_age in running:
        if not liveness.is_alive(owner, heartbeat_age):
            try:
                store.finish_run(run_id, "interrupted", suite.now())
            except Exception:  # noqa: BLE001 — a read-only store: read as it is, marked by the next writer
                store.db.rollback()
                continue
            errors.print(f"run {run_id} was interrupted ({liveness.why_dead(owner, heartbeat_age)}); "
                         f"resume with: parbench run --resume {run_id}"
                         + ("" if db == str(DEFAULT_DB) else f" --db {redact(db)}"), highlight=False)
    return store


@main.command()
@click.argument("journal", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--db", default=str(DEFAULT_DB), show_default=True)
def load(journal, db) -> None:
    """Store the cases a run kept in its journal while its store could not take them."""
    from parbench.store.sink import read_journal
    try:
        entries = read_journal(journal)
    except (OSError, ValueError) as error:
        fail(f"{journal} is not a parbench journal: {error}")
    store = _open(db)
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
    """The run this journal's header names if this store has it (the same start on the same
    machine: a journal loaded twice stores its run once), else a new one with its metadata."""
    from parbench.store import shapes
    record = shapes.run_record(header, "the journal's run")
    existing = store.find_run(record)
    if existing is not None:
        return existing
    record.id = None
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
    from parbench.export import write_all
    from parbench.export.base import Report
    try:
        write_all([Report(record, analyses)], exports, errors)
    except OSError as error:
        fail(str(error), code=1)


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
@click.option("--fail-on-regression", "threshold", type=FiniteRange(0, 1e6), metavar="PCT",
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
    (a, drift_a), (b, drift_b) = _comparands(runs, baseline, machines, db)
    rows = compare_runs.pair_cases(a, b)
    compare_runs.print_comparison(a, b, rows, console, (drift_a, drift_b))
    if threshold is not None:
        worst = compare_runs.regressions(rows, threshold)
        if worst:
            errors.print(f"{len(worst)} case(s) regressed by more than {threshold:g} %: "
                         + ", ".join(r.key for r in worst), highlight=False)
            sys.exit(1)


def _comparands(runs: tuple[str, ...], baseline: str | None, machines: tuple[str, ...], db: str):
    """(A, B) from two export files, or from the store: ids, a baseline, or two machines; each
    with its sitting's drift line (nothing is normalised: each side shows its own sentinel)."""
    from parbench.report.rows import drift_line
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
            records.append((record, drift_line(json_format.read_analyses(Path(path), record.id))))
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
        sides = [suite.load_analyzed(store, ref) for ref in refs]
        return tuple((record, drift_line(suite.all_analyses(store, record))) for record in sides)
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
@click.option("--seed", "order_seed", type=click.IntRange(0, (1 << 63) - 1), default=0, help="The shuffle's seed (--order shuffled).")
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
    commands = list(commands) + ([reference] if reference and reference not in commands else [])
    options = measure.ExecOptions(
        commands=commands, names=list(names), shell="none" if no_shell else shell,
        parameter_lists=[(name, values.split(",")) for name, values in
                         list(parameter_lists) + ([old_parameter_list] if old_parameter_list else [])],
        parameter_scan=parameter_scan, step=step, prepare=list(prepare), setup=setup, cleanup=cleanup,
        conclude=conclude, ignore_failure=ignore_failure, show_output=show_output, expect=expect,
        output_varies=output_varies, reference=reference)
    try:
        settings = measure.settings_for(runs, min_runs, max_runs, timeout, _memory_limit_for_exec(memory_limit),
                                        order, order_seed)
        kind = measure.ExecKind(options, settings, warmup, {
            "warmup": warmup, "runs": runs, "min_runs": min_runs, "max_runs": max_runs, "timeout": timeout,
            "order": order, "seed": order_seed, "time_unit": time_unit}, time_unit)
    except measure.ExecError as error:
        fail(str(error))
    # A command that failed is a failed benchmark, as in hyperfine: exec is always strict.
    _pipeline(kind, db, out_dir, exports, baseline, strict=True)


def _memory_limit_for_exec(text: str | None) -> int | None:
    limit = memory_limit_kb(text)
    return suite.default_memory_limit_kb() if limit is None else (limit or None)


@main.command()
@click.argument("kind", type=click.Choice(["workers", "size", "tasks"]))
@_run_options
@click.option("--workers", help="workers: the counts to run (default: 1, 2, 4 … up to the logical CPUs).")
@click.option("--from", "start", type=FiniteRange(1, 1e15), default=64, show_default=True,
              help="size: the smallest value.")
@click.option("--to", "stop", type=FiniteRange(1, 1e15), help="size: the largest value (default: the scale's).")
@click.option("--factor", type=FiniteRange(1.1, 1e6), default=4, show_default=True, help="size: geometric step.")
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
    request = _request(scale, workloads, runtimes, models, params, workers, processes, warmup, repeat,
                       timeout, budget, target_ci, memory_limit, order, order_seed)
    counts_given = _csv_ints(counts, "--counts")
    all_workloads, all_runtimes = workloads_module.load_all(), runtimes_module.load_all()
    cores = os.cpu_count() or 1
    try:
        chosen = workloads_module.choose(workloads, all_workloads, "workload")
        wanted = workloads_module.choose(runtimes, all_runtimes, "runtime")
        described, _, skipped = suite.describe_runtimes(all_runtimes, wanted)
        for line in skipped:
            console.print(styled(("skip", "yellow"), f" {line}"), highlight=False)
        if not described:
            fail("no installed runtime to sweep")
        make_plan(request, all_workloads, all_runtimes, described)       # validates names early
        if kind != "workers" and len(chosen) != 1:
            fail(f"a {kind} sweep varies one workload's param: pick one with --workload ({', '.join(chosen)})")
        if kind == "workers":
            request.workers = request.workers or sweeping.default_workers(cores)
        if kind == "size":
            request.models = _with_seq(request.models, described, chosen[0])
        strategy = sweeping.strategy_for(kind, all_workloads[chosen[0]], scale, cores, start, stop, factor,
                                         refine, counts_given)
    except (SpecError, ValueError) as error:
        fail(str(error))
    _pipeline(sweeping.SweepKind(strategy, request, all_workloads, all_runtimes, described), db, out_dir,
              exports, None, strict)


def _with_seq(models: tuple[str, ...], described: dict, workload: str) -> tuple[str, ...]:
    """A size sweep compares against seq: named models get each runtime's seq model too."""
    if not models:
        return models
    offered = {name: m for d in described.values() for name, m in d.models_of(workload).items()}
    seqs = tuple(name for name, m in offered.items() if m.family == "seq" and name not in models)
    return tuple(models) + seqs


@main.command()
@click.argument("run_refs", nargs=-1)
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="Write one self-contained HTML page (tables, plots, seeds, metadata) here.")
@click.option("--db", default=str(DEFAULT_DB), show_default=True)
def report(run_refs, html_path, db) -> None:
    """Write the HTML report of stored runs (default: the latest; several runs make one page)."""
    from parbench.export import by_name, write
    store = _open(db)
    try:
        path = write(by_name("html"), suite.load_reports(store, list(run_refs)), str(html_path))
    except StoreError as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot write {html_path}: {error.strerror or error}", code=1)
    console.print(f"wrote {path}", highlight=False)


if __name__ == "__main__":
    main()
