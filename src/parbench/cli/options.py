"""The command line's shared parts: its consoles and one-line errors, click types for seconds,
sizes and comma lists, the options `run` and every sweep share, and the call into the pipeline
that every measuring command ends with. cli.py (and exec's flags) only declare commands."""
from __future__ import annotations

import math
import os
import re
import signal
import sys
from pathlib import Path

import click

from parbench import pipeline, targets
from parbench.escaping import CONSOLE_OPTIONS, SafeConsole, is_valid_unicode, one_line, styled
from parbench.export import formats
from parbench.measure import liveness
from parbench.plan.cases import ORDERS, Request
from parbench.plan.from_request import MEMORY_SHARE, default_memory_limit_kb
from parbench.project import DEFAULT_DB
from parbench.report.live import live_progress
from parbench.store import Store, open_store
from parbench.store.database import StoreError
from parbench.store.upkeep import mark_orphans
from parbench.workloads import SpecError, parse_param_overrides

# Piped output (CI logs, `| tee`) gets wide tables instead of rich's 80-column default, unless
# COLUMNS says how wide (rich reads it then), as a terminal does.
# Markup off: names, stderr tails and commands from outside print as written (escaping.py).
console = SafeConsole(width=None if sys.stdout.isatty() or os.environ.get("COLUMNS") else 200, **CONSOLE_OPTIONS)
errors = SafeConsole(stderr=True, width=None if sys.stderr.isatty() else 200, **CONSOLE_OPTIONS)


def fail(message: str, code: int = 2) -> None:
    # One line whatever the message quotes: a newline in an argument is shown as \n.
    errors.print(styled(("error:", "bold red"), " " + one_line(message)),
                 highlight=False, soft_wrap=True)      # one line, never folded
    sys.exit(code)


# The documented bounds of the comma lists (README): a worker count a machine can schedule, a
# task count a process can hold.
CSV_INT_BOUNDS = {"--workers": 4096, "--counts": 10 ** 9}


def csv_ints(text: str | None, option: str = "--workers") -> tuple[int, ...]:
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


class WarmupCount(click.ParamType):
    """`auto` (a steady state found by evidence, protocol 4) or a fixed count from 0 to 1000."""
    name = "auto|N"

    def convert(self, value, param, ctx):
        if value == "auto" or isinstance(value, int):
            return value
        try:
            count = int(str(value), 10)
        except ValueError:
            self.fail(f"wants 'auto' or a count of repetitions, got '{value}'", param, ctx)
        if not 0 <= count <= 1000:
            self.fail(f"wants 'auto' or a count from 0 to 1000, got '{value}'", param, ctx)
        return count


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
        return int((default_memory_limit_kb() or 0) / MEMORY_SHARE * number / 100)
    kb = int(number * {"K": 1, "M": 1024, "G": 1024 ** 2, "T": 1024 ** 3}[unit])
    if not MEMORY_LIMIT_KB[0] <= kb <= MEMORY_LIMIT_KB[1]:
        # 0.4K would be int 0, which means no limit at all; a limit is a limit or `none`.
        fail(f"--memory-limit wants a size from 1M to 1024T (or none), got '{text}'")
    return kb


def memory_limit_for_exec(text: str | None) -> int | None:
    """exec's --memory-limit in KiB: the default share when not given, None for `none`."""
    limit = memory_limit_kb(text)
    return default_memory_limit_kb() if limit is None else (limit or None)


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
            # click turns a KeyboardInterrupt (our SIGTERM and SIGHUP too) into Abort: the signal is its context.
            if isinstance(interruption, click.exceptions.Abort):
                interruption = interruption.__context__ or interruption
            name = signal.Signals(liveness.signal_of(interruption)).name
            errors.print(f"interrupted ({name}); what was stored is said above" if getattr(interruption, "told", False)
                         else f"interrupted ({name}) before anything was stored", highlight=False)
            sys.exit(liveness.exit_code_of(interruption))
        except StoreError as error:         # a store that cannot be read, wherever it showed it
            fail(str(error))

    def parse_args(self, ctx, args):
        # Bytes that are not UTF-8 arrive as lone surrogates, which no store, export or
        # terminal can take: refused here, once, for every command and option.
        bad = next((a for a in args if not is_valid_unicode(a)), None)
        if bad is not None:
            raise click.UsageError(f"the argument {ascii(bad)[:60]} is not valid UTF-8 text", ctx)
        return super().parse_args(ctx, args)


def one_target(ctx, param, values: tuple[str, ...]) -> str | None:
    """A FILE flag given once: hyperfine 1.20 refuses one given twice (a usage error, exit 2), where
    click would keep the last and drop the first without a word."""
    if len(values) > 1:
        raise click.UsageError(f"the argument '{param.opts[0]} <{param.metavar or 'FILE'}>' cannot be used "
                               f"multiple times ({', '.join(repr(str(v)) for v in values)})")
    return values[0] if values else None


def export_options(command):
    """--export-<format> FILE for every registered format (`-` for standard output)."""
    for exporter in reversed(formats()):
        command = click.option(f"--export-{exporter.name}", f"export_{exporter.name.replace('-', '_')}",
                               metavar="FILE", multiple=True, callback=one_target,
                               help=f"Write {exporter.description} to FILE ('-': stdout).")(command)
    return command


def exports_in(flags: dict) -> dict:
    """The `export_<name>` values among a command's flags (export_options' share of them)."""
    return {name: value for name, value in flags.items() if name.startswith("export_")}


def check_export_targets(exports: dict, out_dir: Path | None = None) -> None:
    """Every export target can be written before anything runs (targets.py: a file, a device or
    a FIFO, never a folder or a disk), and at most one of them is standard output."""
    to_stdout = [option for option, target in exports.items() if option.startswith("export_") and target == "-"]
    if len(to_stdout) > 1:
        fail(f"{', '.join(_flag(o) for o in to_stdout)} all write to standard output ('-'), which holds one "
             "export alone: write the others to files")
    for option, target in exports.items():
        if option.startswith("export_") and target not in (None, "-"):
            if problem := targets.problem(Path(target)):
                fail(f"{_flag(option)} {problem}")
    _refuse_shared_targets(exports, out_dir)


def _refuse_shared_targets(exports: dict, out_dir: Path | None) -> None:
    """Two exports to one file (by any path to it; --out's report.json and report.md among them)
    would each replace the other, both reported written: refused before the run. A character
    device (/dev/null) takes both as `>` would."""
    written = [(_flag(option), target) for option, target in exports.items()
               if option.startswith("export_") and target not in (None, "-")]
    if out_dir is not None:
        written += [(f"--out's {name}", str(Path(out_dir) / name)) for name in ("report.json", "report.md")]
    by_file: dict[str, list[str]] = {}
    for flag, target in written:
        if not targets.is_stream_device(Path(target)):
            by_file.setdefault(os.path.realpath(target), []).append(flag)
    for path, flags in by_file.items():
        if len(flags) > 1:
            fail(f"{' and '.join(flags)} write to one file, {path}: each would replace the other; "
                 "give each export a file of its own")


def _flag(option: str) -> str:
    return "--" + option.replace("_", "-")


def stdout_holds_an_export(exports: dict) -> bool:
    """`--export-FORMAT -`: standard output holds that export alone, everything else goes to
    standard error (hyperfine's rule), so `| jq .` reads it."""
    return any(target == "-" for option, target in exports.items() if option.startswith("export_"))


def db_option(command):
    return click.option("--db", default=str(DEFAULT_DB), show_default=True,
                        help="A SQLite file, sqlite:///path or a postgresql:// URL.")(command)


def run_options(command):
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
            click.option("--warmup", type=WarmupCount(),
                         help="Untimed repetitions per process: 'auto' (until its times settle; quick's default) or a count."),
            click.option("--warmup-budget", type=Seconds(0, 24 * 3600),
                         help="Seconds a process may spend looking for its steady state (quick: 0.5)."),
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
            click.option("--as-root", is_flag=True,
                         help="Under root, run the benchmarks as root too (default: as the user parbench-bench, "
                              "which cannot leave its cgroups or signal parbench)."),
            db_option,
            click.option("--out", "out_dir", type=click.Path(path_type=Path),
                         help="Write report.json and report.md here.")]):
        command = option(command)
    return command


def request_from(flags: dict, workers: str | None) -> Request:
    """The Request of `run_options`' flags (and --workers); a bad --param is one line."""
    try:
        return Request(scale=flags["scale"], workloads=flags["workloads"], runtimes=flags["runtimes"],
                       models=flags["models"], params=parse_param_overrides(flags["params"]),
                       workers=csv_ints(workers, "--workers"), processes=flags["processes"],
                       warmup=flags["warmup"], warmup_budget=flags["warmup_budget"],
                       repeat=flags["repeat"], timeout=flags["timeout"],
                       budget=flags["budget"], target_ci=flags["target_ci"],
                       memory_limit_kb=memory_limit_kb(flags["memory_limit"]), order=flags["order"],
                       seed=flags["order_seed"], as_root=flags["as_root"])
    except SpecError as error:
        fail(str(error))


STRICT_HELP = "Exit 3 if a case failed verification, crashed, hung or hit a limit (for CI)."

# `run_options`' flags that say what a run measures and how: a resume takes them from the run.
RESUMED_SETTINGS = {"workloads": ("--workload", "workloads"), "runtimes": ("--runtime", "runtimes"),
                    "models": ("--model", "models"), "scale": ("--scale", "scale"), "params": ("--param", "params"),
                    "workers": ("--workers", "workers"), "processes": ("--processes", "processes"),
                    "warmup": ("--warmup", "warmup"), "warmup_budget": ("--warmup-budget", "warmup_budget"),
                    "repeat": ("--repeat", "repeat"),
                    "timeout": ("--timeout", "timeout"), "budget": ("--budget", "budget"),
                    "target_ci": ("--target-ci", "target_ci"), "memory_limit": ("--memory-limit", "memory_limit_kb"),
                    "order": ("--order", "order"), "order_seed": ("--seed", "seed"), "as_root": ("--as-root", "as_root")}


def asked_beside_resume(flags: dict, workers: str | None) -> dict[str, tuple[str, object]]:
    """The run settings given on the command line beside --resume, as the Request would hold them:
    {Request field: (flag, value)}. A resume finishes the run as it was asked, so each must
    agree with what the run stored (kinds/suite.py checks)."""
    context = click.get_current_context()
    given = [name for name in RESUMED_SETTINGS
             if context.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE]
    if not given:
        return {}
    request = request_from(flags, workers)
    return {RESUMED_SETTINGS[name][1]: (RESUMED_SETTINGS[name][0], getattr(request, RESUMED_SETTINGS[name][1]))
            for name in given}


def open_marked(db: str, create: bool = True) -> Store:
    """The store, after marking any run whose harness died as interrupted (with its resume line);
    with create=False a store that is not there is one line, and nothing is made."""
    try:
        store = open_store(db, create)
    except StoreError as error:
        fail(str(error))
    db_flag = output_to(db, None, {}).db_flag
    for orphan in mark_orphans(store):
        errors.print(f"run {orphan.run_id} was interrupted ({orphan.why}); " + (
                     f"resume with: parbench run --resume {orphan.run_id}{db_flag}" if orphan.kind == "suite" else
                     f"a{'n' if orphan.kind[:1] in 'aeiou' else ''} {orphan.kind} run cannot be resumed (its measured cases stay in run {orphan.run_id}): "
                     f"start the {orphan.kind} again"), highlight=False)
    return store


def output_to(db: str, out_dir: Path | None, exports: dict, baseline: str | None = None,
              strict: bool = False) -> pipeline.Output:
    report = errors if stdout_holds_an_export(exports) else console
    return pipeline.Output(report, errors, db, out_dir, exports, baseline, strict)


def measure(kind: pipeline.Kind, db: str, out_dir: Path | None, exports: dict, baseline: str | None,
            strict: bool, create_store: bool = True) -> None:
    """A measuring command's whole part: the pipeline, its errors as one line, its exit code."""
    liveness.stop_like_ctrl_c()
    check_export_targets(exports, out_dir)
    store = open_marked(db, create_store)
    output = output_to(db, out_dir, exports, baseline, strict)
    try:
        done = pipeline.run(pipeline.Invocation(kind, store, output),
                            live_progress(output.console, os.cpu_count(), tables=kind.live_tables))
    except pipeline.PipelineError as error:
        fail(str(error), code=error.code)
    except OSError as error:           # an export or report file that could not be written
        fail(str(error), code=1)
    finally:
        # Closing SQLite's last connection folds its write-ahead log back into the file, so
        # the store that a user copies or mails is one complete file again.
        store.close()
    sys.exit(done.exit_code)
