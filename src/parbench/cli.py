"""The `parbench` command: doctor, list, build, run, show, history, compare, exec."""
from __future__ import annotations

import math
import os
import sqlite3
import sys
from pathlib import Path

import click
from rich.console import Console
from rich.table import Table

from parbench import runtimes as runtimes_module
from parbench import suite, workloads as workloads_module
from parbench.plan import Request, make_plan
from parbench.project import DEFAULT_DB
from parbench.run import Runner
from parbench.store import open_store
from parbench.store.database import StoreError
from parbench.workloads import SpecError, parse_param_overrides

# Piped output (CI logs, `| tee`) gets wide tables instead of rich's 80-column default.
console = Console(width=None if sys.stdout.isatty() else 200)
errors = Console(stderr=True, width=None if sys.stderr.isatty() else 200)


def fail(message: str, code: int = 2) -> None:
    errors.print(f"[bold red]error:[/] {message}", highlight=False)
    sys.exit(code)


def _csv_ints(text: str | None) -> tuple[int, ...]:
    if not text:
        return ()
    try:
        values = tuple(int(v) for v in text.split(","))
    except ValueError:
        fail(f"--workers wants a comma list of positive integers, got '{text}'")
    if any(v < 1 for v in values):
        fail(f"--workers wants positive integers, got '{text}'")
    return values


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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


@main.command()
@click.option("--workload", "workloads", multiple=True, help="Only these workloads (repeatable).")
@click.option("--runtime", "runtimes", multiple=True, help="Only these runtimes (repeatable).")
@click.option("--model", "models", multiple=True, help="Only these models (repeatable).")
@click.option("--scale", default="quick", show_default=True, help="smoke | quick | seed")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="Override a workload param; a comma list makes one case per value.")
@click.option("--processes", type=click.IntRange(1), help="Fresh processes per case.")
@click.option("--warmup", type=click.IntRange(0), help="Untimed repetitions per process.")
@click.option("--repeat", type=click.IntRange(1), help="Timed repetitions per process.")
@click.option("--workers", help="Worker counts for models that take them, e.g. 1,2.")
@click.option("--timeout", type=click.FloatRange(0.1), help="Seconds before a process is killed.")
@click.option("--budget", type=click.FloatRange(0), help="Seconds after which a case stops at 2 processes (quick: 20).")
@click.option("--db", default=str(DEFAULT_DB), show_default=True, help="SQLite file or postgresql:// URL.")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), help="Write report.json and report.md here.")
@click.option("--resume", "resume", help="Finish an interrupted run (its id, or 'latest').")
def run(workloads, runtimes, models, scale, params, processes, warmup, repeat, workers, timeout,
        budget, db, out_dir, resume) -> None:
    """Run the suite (or part of it), verify every result, store it and print the tables."""
    try:
        store = open_store(db)
    except StoreError as error:
        fail(str(error))
    if resume:
        try:
            record = store.load_run(store.resolve(resume))
        except StoreError as error:
            fail(str(error))
        request = Request(**{**record.options, **{k: tuple(v) for k, v in record.options.items()
                                                  if isinstance(v, list)}})
        done_keys = {r.case.key for r in record.results}
    else:
        try:
            request = Request(scale=scale, workloads=workloads, runtimes=runtimes, models=models,
                              params=parse_param_overrides(params), workers=_csv_ints(workers),
                              processes=processes, warmup=warmup, repeat=repeat, timeout=timeout,
                              budget=budget)
        except SpecError as error:
            fail(str(error))
        done_keys = set()
    all_workloads = workloads_module.load_all()
    all_runtimes = runtimes_module.load_all()
    try:
        workloads_module.choose(request.workloads, all_workloads, "workload")
        wanted = workloads_module.choose(request.runtimes, all_runtimes, "runtime")
        described, runtimes_info, skipped = suite.describe_runtimes(all_runtimes, wanted)
        plan = make_plan(request, all_workloads, all_runtimes, described)
    except SpecError as error:
        fail(str(error))
    for line in skipped + plan.skipped:
        console.print(f"[yellow]skip[/] {line}", highlight=False)
    cases = suite.startup_cases(plan, described) + plan.cases
    cases = [c for c in cases if c.key not in done_keys]
    if not plan.cases:
        fail("nothing to run: no installed runtime offers the requested workload/model")
    if resume:
        record.status = "running"
        console.print(f"Resuming run {record.id}: {len(cases)} cases left", highlight=False)
    else:
        record = suite.new_record(request, runtimes_info)
        try:
            store.begin_run(record)
        except sqlite3.Error as error:
            fail(f"cannot write a new run to {db}: {error} (is the disk full?); nothing was run", code=1)
    runner = Runner(all_runtimes, all_workloads, suite.settings_for(request))
    try:
        _, interrupted = suite.execute_with_progress(cases, runner, store, record.id, console)
    except suite.DiskFull as error:
        try:
            store.finish_run(record.id, "interrupted", suite.now())
        except sqlite3.Error:
            pass     # the run stays marked 'running'; --resume works on it all the same
        fail(f"{error}. Every case measured before it is stored in {db}; free some space and "
             f"resume with: parbench run --resume {record.id} --db {db}", code=1)
    store.finish_run(record.id, "interrupted" if interrupted else "complete", suite.now())
    full = suite.load_analyzed(store, record.id)
    _print_and_export(full, suite.all_analyses(store, full), out_dir)
    console.print(f"stored as run {record.id} in {db}", highlight=False)
    if interrupted:
        errors.print(f"Interrupted: {len(full.results)} cases are stored in run {record.id}. "
                     f"Resume with: parbench run --resume {record.id} --db {db}", highlight=False)
        sys.exit(130)


def _print_and_export(record, analyses: list, out_dir: Path | None) -> None:
    """The console tables, and report.json / report.md when --out was given."""
    from parbench.report import console as console_report
    console_report.print_run(record, console, analyses)
    if out_dir:
        for path in suite.write_reports(record, out_dir, analyses):
            console.print(f"wrote {path}", highlight=False)


def _open(db: str):
    try:
        return open_store(db)
    except StoreError as error:
        fail(str(error))


@main.command()
@click.argument("run_ref", required=False)
@click.option("--db", default=str(DEFAULT_DB), show_default=True)
@click.option("--out", "out_dir", type=click.Path(path_type=Path), help="Also write report.json and report.md.")
def show(run_ref, db, out_dir) -> None:
    """Re-print a stored run (default: the latest) without re-running anything."""
    store = _open(db)
    try:
        record = suite.load_analyzed(store, run_ref)
    except StoreError as error:
        fail(str(error))
    _print_and_export(record, suite.all_analyses(store, record), out_dir)


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
@click.argument("run_a")
@click.argument("run_b")
@click.option("--db", default=str(DEFAULT_DB), show_default=True)
@click.option("--fail-on-regression", "threshold", type=float, metavar="PCT",
              help="Exit 1 if a case of RUN_B is significantly slower than in RUN_A by more than PCT %.")
def compare(run_a, run_b, db, threshold) -> None:
    """Per case: RUN_B's median against RUN_A's, with a 95% CI; 'no significant difference' where so."""
    from parbench.report import compare_runs
    store = _open(db)
    try:
        a, b = suite.load_analyzed(store, run_a), suite.load_analyzed(store, run_b)
    except StoreError as error:
        fail(str(error))
    rows = compare_runs.pair_cases(a, b)
    compare_runs.print_comparison(a, b, rows, console)
    if threshold is not None:
        worst = compare_runs.regressions(rows, threshold)
        if worst:
            errors.print(f"{len(worst)} case(s) regressed by more than {threshold:g} %: "
                         + ", ".join(r.key for r in worst), highlight=False)
            sys.exit(1)


@main.command(name="exec", context_settings={"ignore_unknown_options": True})
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@click.option("--param-list", "param_list", nargs=2, metavar="NAME VALUES",
              help="Run once per value of a comma list, substituted for {NAME} in the command.")
@click.option("--warmup", type=click.IntRange(0), default=1, show_default=True)
@click.option("--runs", type=click.IntRange(2), default=10, show_default=True)
@click.option("--timeout", type=click.FloatRange(0.1), default=600, show_default=True)
@click.option("--expect", help="Each run's stdout (stripped) must equal this, or the timing is rejected.")
@click.option("--output-varies", is_flag=True, help="Accept runs whose stdout differs from the first run's.")
@click.option("--db", default=str(DEFAULT_DB), show_default=True)
@click.option("--out", "out_dir", type=click.Path(path_type=Path))
def exec_command(command, param_list, warmup, runs, timeout, expect, output_varies, db, out_dir) -> None:
    """Measure any command like hyperfine does: parbench exec -- CMD ARGS…

    One argument runs through `sh -c` (like hyperfine); several run directly. Each run is a
    fresh process measured by wait4 (wall, CPU, peak RSS); a run counts only if it exits 0
    and prints what the first run printed (or --expect).
    """
    from parbench import exec_command as measure
    store = _open(db)
    try:
        record = measure.run(list(command), param_list, warmup, runs, timeout, expect,
                             output_varies, store, console)
    except measure.ExecError as error:
        fail(str(error))
    _print_and_export(record, [], out_dir)
    console.print(f"stored as run {record.id} in {db}", highlight=False)
    if record.status != "complete":
        sys.exit(1)


@main.command()
@click.argument("kind", type=click.Choice(["workers", "size", "tasks"]))
@click.option("--workload", "workloads", multiple=True, help="Only these workloads (repeatable).")
@click.option("--runtime", "runtimes", multiple=True, help="Only these runtimes (repeatable).")
@click.option("--model", "models", multiple=True, help="Only these models (repeatable; seq is added for size sweeps).")
@click.option("--scale", default="quick", show_default=True, help="The params not swept come from this scale.")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE")
@click.option("--workers", help="workers: the counts to run (default: 1, 2, 4 … up to the logical CPUs).")
@click.option("--from", "start", type=float, default=64, show_default=True, help="size: the smallest value.")
@click.option("--to", "stop", type=float, help="size: the largest value (default: the scale's).")
@click.option("--factor", type=click.FloatRange(1.1), default=4, show_default=True, help="size: geometric step.")
@click.option("--refine", type=click.IntRange(0), default=2, show_default=True,
              help="size: bisection steps near each crossing.")
@click.option("--counts", help="tasks: the counts to run, e.g. 10000,40000,100000,400000,1000000.")
@click.option("--processes", type=click.IntRange(1))
@click.option("--warmup", type=click.IntRange(0))
@click.option("--repeat", type=click.IntRange(1))
@click.option("--timeout", type=click.FloatRange(0.1))
@click.option("--db", default=str(DEFAULT_DB), show_default=True)
@click.option("--out", "out_dir", type=click.Path(path_type=Path))
def sweep(kind, workloads, runtimes, models, scale, params, workers, start, stop, factor, refine, counts,
          processes, warmup, repeat, timeout, db, out_dir) -> None:
    """Sweep workers (speedup, Amdahl and USL fits), input size (the crossover where parallel
    starts to win) or task count (time and bytes per task, the largest count that ran)."""
    from parbench import sweep as sweeping
    store = _open(db)
    try:
        request = Request(scale=scale, workloads=workloads, runtimes=runtimes, models=models,
                          params=parse_param_overrides(params), workers=_csv_ints(workers),
                          processes=processes, warmup=warmup, repeat=repeat, timeout=timeout)
        all_workloads = workloads_module.load_all()
        all_runtimes = runtimes_module.load_all()
        chosen = workloads_module.choose(workloads, all_workloads, "workload")
        wanted = workloads_module.choose(runtimes, all_runtimes, "runtime")
        described, _, skipped = suite.describe_runtimes(all_runtimes, wanted)
        for line in skipped:
            console.print(f"[yellow]skip[/] {line}", highlight=False)
        if not described:
            fail("no installed runtime to sweep")
        make_plan(request, all_workloads, all_runtimes, described)       # validates names early
        cores = os.cpu_count() or 1
        if kind == "workers":
            if not request.workers:
                request.workers = tuple(sorted({2 ** i for i in range(int(math.log2(cores)) + 1)} | {cores}))
        elif len(chosen) != 1:
            fail(f"a {kind} sweep varies one workload's param: pick one with --workload "
                 f"({', '.join(chosen)})")
        param = sweeping.SWEPT_PARAM.get(chosen[0]) if kind != "workers" else None
        if kind == "size" and models and not any(
                m.get("family") == "seq" for d in described.values()
                for name, m in d.get("workloads", {}).get(chosen[0], {}).get("models", {}).items() if name in models):
            request.models = tuple(models) + tuple(
                name for d in described.values()
                for name, m in d.get("workloads", {}).get(chosen[0], {}).get("models", {}).items()
                if m.get("family") == "seq")
        run_sweep = sweeping.Sweep(request, all_workloads, all_runtimes, described, store, console, kind)
    except SpecError as error:
        fail(str(error))
    cores = os.cpu_count() or 1
    if kind == "workers":
        run_sweep.run({}, startup=True)
        record = run_sweep.finish()
        analyses = sweeping.analyze_workers(record, cores)
    elif kind == "size":
        top = stop or all_workloads[chosen[0]].scales[scale][param]
        values = sweeping.geometric(start, top, factor)
        for value in values:
            if run_sweep.interrupted:
                break
            run_sweep.run({param: value}, startup=value == values[0])
        for _ in range(refine):
            if run_sweep.interrupted:
                break
            current = suite.load_analyzed(store, run_sweep.record.id)
            brackets = {r["sizes"] and sweeping.crossover.refine_between(r["sizes"], r["ratio"])
                        for _, _, r in sweeping.analyze_sizes(current, param)} - {None}
            for value in sorted(int(b) for b in brackets if b and int(b) not in values):
                values.append(value)
                run_sweep.run({param: value})
        record = run_sweep.finish()
        analyses = sweeping.analyze_sizes(record, param)
    else:
        values = _csv_ints(counts) if counts else sweeping.geometric(
            all_workloads[chosen[0]].scales["smoke"][param], all_workloads[chosen[0]].scales[scale][param]
            if not isinstance(all_workloads[chosen[0]].scales[scale][param], list)
            else max(all_workloads[chosen[0]].scales[scale][param]), 4)
        stopped: set[tuple[str, str]] = set()
        for value in values:
            if run_sweep.interrupted:
                break
            done = run_sweep.run({param: value}, skip=lambda c: (c.runtime, c.model) in stopped,
                                 startup=value == values[0])
            stopped |= {(o.case.runtime, o.case.model) for o in done if o.status != "ok"}
        record = run_sweep.finish()
        analyses = sweeping.analyze_tasks(record, param)
    for analysis_kind, subject, result in analyses:
        store.add_analysis(record.id, analysis_kind, subject, result)
    _print_and_export(record, suite.all_analyses(store, record), out_dir)
    console.print(f"stored as run {record.id} in {db}", highlight=False)
    if run_sweep.interrupted:
        errors.print(f"Interrupted: what was measured is stored in run {record.id}.", highlight=False)
        sys.exit(130)


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
