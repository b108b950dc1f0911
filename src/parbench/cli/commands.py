"""The `parbench` command: its flags, turned into a request and handed to one function each.

Planning lives in the kinds (kinds/), measuring in the pipeline (pipeline.py), store chores in
store/, comparison choice in report/comparands.py; the shared options and types in flags.py.
"""
from __future__ import annotations

import concurrent.futures
import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import click
from rich.table import Table

from parbench import pipeline
from parbench.cli.comparands import comparands
from parbench.cli.options import (STRICT_HELP, FiniteRange, OneLineErrors, asked_beside_resume, check_export_targets,
                                  console, csv_ints, db_option, errors, export_options, exports_in, fail, measure,
                                  one_target, open_marked, output_to, request_from, run_options)
from parbench.errors import EXIT_REGRESSION, PipelineError
from parbench.escaping import one_line, styled
from parbench.export import by_name, check_writable, write
from parbench.export.base import Report
from parbench.cli import exec_command
from parbench.kinds.suite import SuiteKind
from parbench.kinds.sweep import SWEEPS, SweepKind, SweepRequest
from parbench.measure import liveness, process, sealing
from parbench.measure import runtimes as runtimes_module
from parbench.plan.from_request import describe_runtimes
from parbench.project import DEFAULT_DB
from parbench.report import compare_runs, inventory
from parbench.store import open_store
from parbench.store.analyzed import load_reports
from parbench.store.database import StoreError, redact
from parbench.store.sink import likely_cause
from parbench.store.upkeep import LoadStopped, load_journal
from parbench.workloads import SpecError, choose
from parbench.workloads import load_all as load_workloads


@click.group(cls=OneLineErrors, context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """parbench: which concurrency model and runtime wins for this work, on this machine."""
    hide_passwords_from_the_process_title()


def hide_passwords_from_the_process_title() -> None:
    """A store's password given on the command line (`--db postgresql://u:PASS@h/db`) is masked
    in this process's own command line at once: /proc/<pid>/cmdline is readable by every local
    user, the benchmarks included. PGPASSWORD or PGPASSFILE keep it out of the command line
    altogether (docs/reliability.md)."""
    for arg in sys.argv[1:]:
        masked = redact(arg, mask="*")
        if masked != arg:
            _rewrite_own_command_line(os.fsencode(arg), os.fsencode(masked))


def _rewrite_own_command_line(old: bytes, new: bytes) -> None:
    """Writes `new` over the argument `old` where the kernel keeps this process's arguments (the
    region /proc/self/stat calls arg_start…arg_end, which /proc/<pid>/cmdline shows), as
    setproctitle(3) does; `new` is as long as `old`, so nothing moves."""
    fields = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
    start, end = int(fields[45]), int(fields[46])        # proc(5): fields 48 and 49
    region = ctypes.string_at(start, end - start)
    at = region.find(b"\0" + old + b"\0")
    if at >= 0 and len(new) == len(old):
        ctypes.memmove(start + at + 1, new, len(new))


@main.command()
def doctor() -> None:
    """Each runtime: found or missing, its version, and the command that installs it."""
    inventory.print_doctor(runtimes_module.load_all(), console)


@main.command("list")
def list_command() -> None:
    """Workloads, runtimes and their models with each model's family."""
    runtimes = runtimes_module.load_all()
    described, skipped = describe_runtimes(runtimes, list(runtimes))
    inventory.print_listing(load_workloads(), described, skipped, console)


@main.command()
@click.option("--runtime", "runtime_names", multiple=True, help="Only these runtimes (repeatable).")
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=2, show_default=True,
              help="Runtimes built at once.")
def build(runtime_names: tuple[str, ...], jobs: int) -> None:
    """Build every installed runtime's implementation (each impls/<runtime>/build)."""
    runtimes = runtimes_module.load_all()
    try:
        names = choose(runtime_names, runtimes, "runtime")
    except SpecError as error:
        fail(str(error))
    if not sealing.can_seal():
        console.print(styled(("unsealed", "yellow"), f" {sealing.UNSEALED}"), highlight=False)
    wanted = []
    for name in names:
        if runtimes[name].available:
            wanted.append(runtimes[name])
        else:
            console.print(styled(("skip", "yellow"), f" {name}: {runtimes[name].why_unavailable()}"), highlight=False)

    # Two at once by default: most builds are one compiler on one core (better-sqlite3's
    # sqlite3.c, g++ a file at a time) or wait on a registry, so a second build fills the other
    # core; on 2 cores from empty caches the nine took 236 s one by one. Each is sealed and
    # measured on its own thread (process.run_measured keeps a launcher per thread).
    stopping = threading.Event()

    def one(runtime) -> tuple[str, subprocess.CompletedProcess | None, float]:
        if stopping.is_set():
            return runtime.name, None, 0.0
        console.print(f"build {runtime.name} …", highlight=False)
        started = time.monotonic()
        return runtime.name, runtime.build(), time.monotonic() - started

    failed = []
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
    try:
        for name, done, took in pool.map(one, runtimes_module.longest_build_first(wanted)):
            if done.returncode != 0:
                failed.append(name)
                tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
                console.print(styled((f"build {name} failed", "red"), f" (exit {done.returncode}, {took:.0f} s):\n{tail}"),
                              highlight=False)
            else:
                console.print(f"built {name} in {took:.0f} s", highlight=False)
    except BaseException:       # Ctrl-C, SIGTERM: the builds on the other threads end with it
        stopping.set()
        process.end_every_run()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    if failed:
        fail(f"build failed for: {', '.join(failed)}", code=1)


@main.command()
@run_options
@click.option("--workers", help="Worker counts for models that take them, e.g. 1,2.")
@click.option("--resume", "resume", help="Finish an interrupted run (its id, or 'latest').")
@click.option("--strict", is_flag=True, help=STRICT_HELP)
@click.option("--save-baseline", "baseline", metavar="NAME", help="Name this run as a baseline for `compare --baseline`.")
@export_options
def run(db, out_dir, workers, resume, strict, baseline, **flags) -> None:
    """Run the suite (or part of it), verify every result, store it and print the tables."""
    if resume:
        kind = SuiteKind(None, resume, asked=asked_beside_resume({**flags}, workers))
    else:
        kind = SuiteKind(request_from(flags, workers))
    measure(kind, db, out_dir, exports_in(flags), baseline, strict, create_store=not resume)


@main.command()
@click.argument("journal", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@db_option
def load(journal, db) -> None:
    """Store the cases a run kept in its journal while its store could not take them."""
    try:
        loaded = load_journal(journal, lambda: _store_taking(journal, db))
    except LoadStopped as stopped:
        cause = likely_cause(stopped)
        fail(f"{redact(db)} stopped taking the journal's cases after {stopped.stored} of {stopped.total} ({stopped}"
             f"{'; ' + cause if cause else ''}); {journal} is kept as it was: load it again once the store can take it (a case "
             "loaded twice is stored once)", code=1)
    except (OSError, ValueError) as error:
        fail(f"{journal} is not a parbench journal: {error}")
    console.print(f"loaded {loaded.cases} case(s) from {one_line(journal)} into run(s) "
                  f"{', '.join(map(str, loaded.run_ids))} of {one_line(redact(db))}", highlight=False)


def _store_taking(journal: Path, db: str):
    """The store `load` writes into; one that cannot even be opened (a full disk leaves no room
    for SQLite's -shm file) leaves the journal as it is, and says so."""
    try:
        open_store(db).close()
    except StoreError as error:
        disk = any(word in str(error).lower() for word in ("disk", "i/o", "no space"))
        fail(f"{error}; {journal} is kept as it was: load it again once the store can take it", code=1 if disk else 2)
    return open_marked(db)


@main.command()
@click.argument("run_ref", required=False)
@db_option
@click.option("--out", "out_dir", type=click.Path(path_type=Path), help="Also write report.json and report.md.")
@export_options
def show(run_ref, db, out_dir, **exports) -> None:
    """Re-print a stored run (default: the latest) without re-running anything."""
    check_export_targets(exports, out_dir)
    if out_dir and (problem := check_writable(out_dir)):
        fail(problem)
    try:
        pipeline.show(open_marked(db, create=False), run_ref, output_to(db, out_dir, exports))
    except PipelineError as error:
        fail(str(error), code=error.code)


@main.command()
@db_option
def history(db) -> None:
    """Every stored run: id, kind, when, status, scale, number of cases."""
    table = Table(header_style="bold")
    for column in ("run", "kind", "started", "status", "scale", "cases"):
        table.add_column(column)
    for row in open_marked(db, create=False).runs_summary():
        table.add_row(*map(str, row))
    console.print(table)


@main.command()
@click.argument("runs", nargs=-1)
@click.option("--baseline", metavar="NAME", help="Compare against the run saved as NAME (run --save-baseline).")
@click.option("--machine", "machines", multiple=True, metavar="HOST",
              help="The newest complete run of that machine (a fleet's store); give two.")
@db_option
@click.option("--fail-on-regression", "threshold", type=FiniteRange(0, 1e6), metavar="PCT",
              help="Exit 1 if a case of B is significantly slower than in A by more than PCT %, "
                   "or is missing from either run.")
@click.option("--allow-missing", is_flag=True,
              help="With --fail-on-regression: a case that only one of the runs holds does not fail.")
def compare(runs, baseline, machines, db, threshold, allow_missing) -> None:
    """Per case: B's median against A's, with a 95% CI; 'no significant difference' where so.

    \b
    parbench compare 11 12                   two stored runs (ids, latest, latest~1)
    parbench compare --baseline main         the latest run against the baseline 'main'
    parbench compare --baseline main 14      run 14 against it
    parbench compare a.json b.json           two --export-json files, no store needed
    parbench compare --machine ci-2core --machine ci-16core     two machines of one store
    """
    try:
        (a, drift_a), (b, drift_b) = comparands(runs, baseline, machines, lambda: open_marked(db, create=False))
    except PipelineError as error:
        fail(str(error), code=error.code)
    rows = compare_runs.pair_cases(a, b)
    compare_runs.print_comparison(a, b, rows, console, (drift_a, drift_b))
    worst = compare_runs.regressions(rows, threshold) if threshold is not None else []
    if worst:
        errors.print(f"{len(worst)} case(s) regressed by more than {threshold:g} %: "
                     + ", ".join(r.key for r in worst), highlight=False)
    lacking = compare_runs.missing(rows) if threshold is not None and not allow_missing else []
    if lacking:
        # A renamed or dropped case would otherwise pass a CI gate unmeasured.
        errors.print(f"{len(lacking)} case(s) missing from one run (--allow-missing lets them pass): "
                     + ", ".join(f"{r.key} (only in run {r.only_in})" for r in lacking), highlight=False)
    if worst or lacking:
        sys.exit(EXIT_REGRESSION)


main.add_command(exec_command.command)


@main.command()
@click.argument("axis", type=click.Choice(SWEEPS))
@run_options
@click.option("--workers", help="workers: the counts to run (default: 1, 2, 4 … up to the logical CPUs).")
@click.option("--from", "start", type=FiniteRange(1, 1e15), default=64, show_default=True,
              help="size: the smallest value.")
@click.option("--to", "stop", type=FiniteRange(1, 1e15), help="size: the largest value (default: the scale's).")
@click.option("--factor", type=FiniteRange(1.1, 1e6), default=4, show_default=True, help="size: geometric step.")
@click.option("--refine", type=click.IntRange(0, 20), default=2, show_default=True,
              help="size: bisection steps near each crossing.")
@click.option("--counts", help="tasks: the counts to run, e.g. 10000,40000,100000,400000,1000000.")
@click.option("--strict", is_flag=True, help=STRICT_HELP)
@export_options
def sweep(axis, db, out_dir, workers, start, stop, factor, refine, counts, strict, **flags) -> None:
    """Sweep workers (speedup, Amdahl and USL fits), input size (the crossover where parallel
    starts to win) or task count (time and bytes per task, the largest count that ran)."""
    request = request_from(flags, workers)
    sweeping = SweepRequest(axis, start, stop, factor, refine, csv_ints(counts, "--counts"))
    measure(SweepKind(sweeping, request), db, out_dir, exports_in(flags), None, strict)


@main.command()
@click.argument("run_refs", nargs=-1)
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path), required=True,
              multiple=True, callback=one_target, help="Write one self-contained HTML page (tables, plots, seeds, metadata) here.")
@db_option
def report(run_refs, html_path, db) -> None:
    """Write the HTML report of stored runs (default: the latest; several runs make one page)."""
    store = open_marked(db, create=False)
    liveness.stop_like_ctrl_c()         # SIGTERM too ends with a line, not in silence
    try:
        reports = [Report(record, analyses) for record, analyses in load_reports(store, list(run_refs))]
        path = write(by_name("html"), reports, str(html_path))
    except StoreError as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot write {html_path}: {error.strerror or error}", code=1)
    except KeyboardInterrupt as interruption:
        name = signal.Signals(liveness.signal_of(interruption)).name
        fail(f"interrupted ({name}) before {html_path} was written; a page already there is kept as it was",
             code=liveness.exit_code_of(interruption))
    if path is not None:                # `--html -`: standard output holds the page alone
        console.print(f"wrote {one_line(path)}", highlight=False)


@main.command()
@click.option("--workload", help="The workload asked about (default: the one whose swept --param is given).")
@click.option("--param", "params", multiple=True, metavar="NAME=VALUE",
              help="The value you will run at (size=40MB, tasks=200k); other params fix the ranking's.")
@click.option("--cores", type=click.IntRange(1, 4096), help="The cores (workers) asked about (default: this machine's).")
@click.option("--runtime", "runtimes", multiple=True, help="Only these runtimes (repeatable).")
@click.option("--family", "families", multiple=True, help="Only these model families, and seq (repeatable).")
@click.option("--kernel", help="Only this kernel class (portable | tuned).")
@click.option("--memory", "by_memory", is_flag=True, help="Rank by predicted peak memory instead of time.")
@click.option("--for", "answers", type=click.Choice(["steady-state", "first-run"]), default="steady-state",
              show_default=True, help="Rank by the steady median (a server) or each process's first "
                                      "repetition (a short-lived command); the other is shown beside.")
@click.option("--measure", is_flag=True, help="Run the sweeps that are missing first, then answer.")
@click.option("--check", is_flag=True, help="Run the first two of each ranking at the value: predicted against measured.")
@click.option("--processes", type=click.IntRange(1, 1000), help="--measure and --check: processes per case.")
@click.option("--export-json", "export_json", metavar="FILE", multiple=True, callback=one_target,
              help="Write the advice as JSON to FILE ('-': stdout).")
@click.option("--exec", "exec_runs", multiple=True, metavar="RUN",
              help="Ask your own stored sweeps (exec --fit runs: ids or latest) which command at --cores, from what size.")
@click.option("--db", default=str(DEFAULT_DB), show_default=True)
def advise(workload, params, cores, runtimes, families, kernel, by_memory, answers, measure, check, processes,
           export_json, exec_runs, db) -> None:
    """Which model and runtime for your own size or task count and cores, predicted from the store
    with intervals and evidence: parbench advise --workload W --param size=40MB --cores 8"""
    # Imported here, not at the top: the predictions' modules load only when advise is asked for.
    from parbench.advise.command import AdviseError, AdviseRequest, answer, answer_commands
    if exec_runs:
        others = [flag for flag, given in (("--workload", workload), ("--param", params), ("--measure", measure),
                                           ("--check", check), ("--memory", by_memory),
                                           ("--runtime", runtimes), ("--family", families), ("--kernel", kernel),
                                           ("--for", answers != "steady-state"))
                  if given]
        if others:
            fail(f"--exec asks your own stored command sweeps; {', '.join(others)} ask the workloads' (not both)")
        try:
            sys.exit(answer_commands(db, exec_runs, cores, lambda text: console.print(text, highlight=False,
                                                                                      soft_wrap=True),
                                     export_json))
        except AdviseError as error:
            fail(str(error))
    if measure or check:
        liveness.stop_like_ctrl_c()        # Ctrl-C (even under `&`) stops the sweeps it runs, as `sweep` stops
    request = AdviseRequest(workload, params, cores, db, runtimes, families, kernel, by_memory, answers, measure,
                            check, export_json, ("--processes", str(processes)) if processes else ())
    try:
        # With --export-json -, standard output holds the JSON alone (hyperfine's rule).
        say = errors if export_json == "-" else console
        sys.exit(answer(request, lambda text: say.print(text, highlight=False, soft_wrap=True)))
    except AdviseError as error:
        fail(str(error), code=error.code)


if __name__ == "__main__":
    main()
