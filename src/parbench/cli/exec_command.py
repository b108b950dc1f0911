"""`parbench exec`'s command line: hyperfine 1.20's, all of it, with its meanings, defaults and
refusals (usage errors exit 2, what it refuses after parsing exits 1, a failing command exits 1),
and parbench's own flags beside it; it runs through the same `measure` as `run` and `sweep`."""
from __future__ import annotations

import sys
from pathlib import Path

import click

from parbench.cli.options import FiniteRange, check_export_targets, measure, memory_limit_for_exec, one_target
from parbench.export import formats
from parbench.kinds.exec import ExecError, ExecKind, ExecOptions, settings_for
from parbench.kinds.exec.commands import NotACommandLine, tokenize
from parbench.kinds.exec.fit import FitError, fit_request
from parbench.plan.cases import ORDERS
from parbench.project import DEFAULT_DB

STYLES = ["auto", "basic", "full", "nocolor", "color", "none"]
SORTS = ["auto", "command", "mean-time"]
UNITS = ["microsecond", "millisecond", "second"]
EXIT_FAILED_CASE, EXIT_HYPERFINE_FAILURE = 3, 1
# hyperfine reads -w, -m, -M and -r as u64 and refuses what does not fit; the same bound here.
U64_MAX = (1 << 64) - 1

# exec's names for the registered formats: hyperfine's --export-markdown is its one table;
# parbench's whole Markdown report is --export-report.
EXPORT_FLAGS = {"markdown": "report", "hyperfine-markdown": "markdown"}


class Refused(click.ClickException):
    """What hyperfine refuses once the command line is parsed: one line, exit 1 as hyperfine."""
    exit_code = 1


class HyperfineCommand(click.Command):
    """hyperfine's `--ignore-failure[=CODES]` takes its value only after `=`, so `-i 'cmd'` is
    the flag and a command: the `=` forms become the hidden --ignore-failure-codes first."""

    def parse_args(self, ctx, args):
        rewritten, rest = [], list(args)
        while rest:
            arg = rest.pop(0)
            if arg == "--":
                rewritten += [arg, *rest]
                break
            for prefix in ("--ignore-failure=", "-i="):
                if arg.startswith(prefix):
                    arg = "--ignore-failure-codes=" + arg[len(prefix):]
            rewritten.append(arg)
        self._refuse_repeated(ctx, rewritten)
        return super().parse_args(ctx, rewritten)

    def _refuse_repeated(self, ctx, args: list[str]) -> None:
        """An option that takes one value, given twice (`-r 3 -r 5`): hyperfine 1.20 (clap) refuses
        it, exit 2, where click keeps the last and drops the first without a word. Options made to
        repeat (`--prepare`, `-L`, exports, which say so themselves) are not counted here."""
        single = {opt: param for param in self.get_params(ctx) if isinstance(param, click.Option)
                  and not param.multiple and not param.is_flag and not param.count for opt in param.opts}
        seen: dict[str, str] = {}
        rest = iter(args)
        for arg in rest:
            if arg == "--":
                break
            name = arg.split("=", 1)[0] if arg.startswith("--") else arg[:2] if arg.startswith("-") else ""
            param = single.get(name)
            if param is None:
                continue
            if param.name in seen:
                raise click.UsageError(f"the argument '{max(param.opts, key=len)} <{param.metavar or param.name.upper()}>' "
                                       f"cannot be used multiple times ({seen[param.name]} and {name})", ctx)
            seen[param.name] = name
            if arg == name:          # its value is the next argument, which may look like an option
                next(rest, None)


def _export_options(command):
    """--export-<format> FILE for every registered format, under exec's names."""
    for exporter in reversed(formats()):
        flag = EXPORT_FLAGS.get(exporter.name, exporter.name)
        described = "hyperfine's Markdown table" if flag == "markdown" else exporter.description
        command = click.option(f"--export-{flag}", f"export_{exporter.name.replace('-', '_')}", metavar="FILE",
                               multiple=True, callback=one_target,
                               help=f"Write {described} to FILE ('-': stdout).")(command)
    return command


def _refuse_conflicts(given: dict) -> None:
    """clap's conflicts and requirements in hyperfine's cli.rs: usage errors, exit 2."""
    pairs = [("runs", "min_runs", "--runs", "--min-runs"), ("runs", "max_runs", "--runs", "--max-runs"),
             ("parameter_lists", "parameter_scan", "--parameter-list", "--parameter-scan"),
             ("parameter_lists", "step", "--parameter-list", "--parameter-step-size"),
             ("no_shell", "shell", "-N", "--shell"), ("show_output", "output", "--show-output", "--output"),
             ("show_output", "style", "--show-output", "--style"), ("check", "expect_file", "--check", "--expect-file")]
    for a, b, flag_a, flag_b in pairs:
        if given[a] and given[b]:
            raise click.UsageError(f"the argument '{flag_a}' cannot be used with '{flag_b}'")
    for needed, by, flag_needed, flag_by in (("parameter_scan", "step", "--parameter-scan", "--parameter-step-size"),
                                             ("reference", "reference_name", "--reference", "--reference-name")):
        if given[by] and not given[needed]:
            raise click.UsageError(f"{flag_by} requires {flag_needed}")


def _refuse_output_beside_an_export(given: dict, exports: dict) -> None:
    """`--export-FORMAT -` makes standard output the export's alone: the commands' own output
    cannot be shown there too."""
    shown = given["show_output"] or "inherit" in given["output"]
    to_stdout = next((k for k, v in exports.items() if v == "-"), None)
    if shown and to_stdout:
        flag = "--export-" + EXPORT_FLAGS.get(to_stdout[len("export_"):].replace("_", "-"),
                                              to_stdout[len("export_"):].replace("_", "-"))
        raise click.UsageError(f"{flag} - writes the export to standard output, which then holds it alone: the "
                               "commands' output (--show-output, --output=inherit) cannot go there too; "
                               "use --output FILE, or write the export to a file")


def _options(given: dict) -> ExecOptions:
    ignore = given["ignore_failure_codes"] if given["ignore_failure_codes"] is not None else (
        "all-non-zero" if given["ignore_failure"] else None)
    lists = [(name, tokenize(values)) for name, values in
             list(given["parameter_lists"]) + ([given["old_parameter_list"]] if given["old_parameter_list"] else [])]
    output = ["inherit"] if given["show_output"] else (list(given["output"]) or ["null"])
    return ExecOptions(
        commands=list(given["commands"]), names=list(given["names"]), parameter_lists=lists,
        parameter_scan=given["parameter_scan"], step=given["step"],
        shell="none" if given["no_shell"] else (given["shell"] or "sh"), prepare=list(given["prepare"]),
        conclude=list(given["conclude"]), setup=given["setup"], cleanup=given["cleanup"], ignore_failure=ignore,
        output=output, input=given["input"], expect=given["expect"], expect_same=given["expect_same"],
        reference=given["reference"], reference_name=given["reference_name"], sort=given["sort"],
        prepare_once=given["prepare_once"], check=given["check"], expect_file=given["expect_file"],
        evaluated_values=given["allow_evaluated_values"])


@click.command(name="exec", cls=HyperfineCommand)
@click.argument("commands", nargs=-1, required=True)
@click.option("-w", "--warmup", type=click.IntRange(0, U64_MAX), default=0, show_default=True,
              help="Untimed runs of each command first (to fill caches).")
@click.option("-m", "--min-runs", type=click.IntRange(1, U64_MAX), help="At least NUM runs of each command (default 10).")
@click.option("-M", "--max-runs", type=click.IntRange(1, U64_MAX), help="At most NUM runs of each command.")
@click.option("-r", "--runs", type=click.IntRange(1, U64_MAX), help="Exactly NUM runs of each command.")
@click.option("-s", "--setup", metavar="CMD", help="Run once before the runs of each command.")
@click.option("--reference", metavar="CMD", help="Compare every command with this one (default: the fastest).")
@click.option("--reference-name", metavar="NAME", help="A name for the reference command.")
@click.option("-p", "--prepare", multiple=True, metavar="CMD",
              help="Run before each run (once for all, or once per command in order).")
@click.option("-C", "--conclude", multiple=True, metavar="CMD",
              help="Run after each run (once for all, or once per command in order).")
@click.option("-c", "--cleanup", metavar="CMD", help="Run once after the runs of each command.")
@click.option("-P", "--parameter-scan", nargs=3, metavar="VAR MIN MAX", help="{VAR} from MIN to MAX.")
@click.option("-D", "--parameter-step-size", "step", metavar="DELTA",
              help="The step of --parameter-scan (needed for decimals).")
@click.option("-L", "--parameter-list", "parameter_lists", nargs=2, multiple=True, metavar="VAR VALUES",
              help="{VAR} from a comma list; repeatable (every combination).")
@click.option("--param-list", "old_parameter_list", nargs=2, hidden=True)
@click.option("-S", "--shell", help="The shell for the commands (a name, a path or 'bash --norc'); 'none': none.")
@click.option("-N", "no_shell", is_flag=True, help="No shell (--shell=none): each command is split into words.")
@click.option("--allow-evaluated-values", is_flag=True,
              help="Let a {VAR} go to a command that runs it as code (sh -c, eval, let, [[ ]]…); refused otherwise.")
@click.option("-i", "--ignore-failure", is_flag=True,
              help="Count runs that exit non-zero; --ignore-failure=1,2 only those codes.")
@click.option("--ignore-failure-codes", hidden=True)
@click.option("--style", type=click.Choice(STYLES), help="hyperfine's output styles; 'none' prints no report.")
@click.option("--sort", type=click.Choice(SORTS), default="auto",
              help="The comparison's order: auto/mean-time (fastest first) or command (as given).")
@click.option("-u", "--time-unit", type=click.Choice(UNITS), help="The unit of the times printed.")
@_export_options
@click.option("--show-output", is_flag=True, help="Show the commands' output (--output=inherit).")
@click.option("--output", multiple=True, metavar="WHERE",
              help="null (default: /dev/null, unread unless a check needs it), pipe (read and digested), "
                   "inherit or a FILE; once for all or once per command.")
@click.option("--input", metavar="WHERE", help="null (default) or a FILE for the commands' standard input.")
@click.option("-n", "--command-name", "names", multiple=True, metavar="NAME", help="A name per command, in order.")
@click.option("--min-benchmarking-time", type=FiniteRange(0, 7 * 24 * 3600), default=3.0, hidden=True)
@click.option("--expect", metavar="TEXT", help="Every run must print TEXT (stripped), or the command fails.")
@click.option("--expect-same", is_flag=True, help="Every run must print what the first run printed.")
@click.option("--refine", type=click.IntRange(0, 20), default=2, show_default=True,
              help="--fit size: bisection rounds near each crossing (new values between two measured ones).")
@click.option("--check", metavar="CMD",
              help="Per parameter set: every run must print what CMD prints there (run once, untimed).")
@click.option("--expect-file", metavar="FILE",
              help="Per parameter set ({VAR} in FILE's path): every run must print FILE's bytes.")
@click.option("--prepare-once", metavar="CMD",
              help="Once per parameter set, before any run at it and outside every timing (make the inputs).")
@click.option("--fit", metavar="AXIS[=VAR]",
              help="The swept parameter is a worker count (workers), an input size (size) or a unit count "
                   "(count): fit Amdahl and USL, find the crossover with the first command, or the cost per unit.")
@click.option("--verbose", is_flag=True,
              help="--fit: every column of the points' tables (else columns are left out to fit the terminal).")
@click.option("--output-varies", is_flag=True, hidden=True, help="Accepted and ignored (varied output is the default).")
@click.option("--timeout", type=FiniteRange(0.1, 7 * 24 * 3600), default=600, show_default=True,
              help="Seconds before a run is killed.")
@click.option("--memory-limit", metavar="SIZE", help="Memory of a run's process tree (default 75%).")
@click.option("--order", type=click.Choice(ORDERS), default="interleaved", show_default=True,
              help="How the commands' runs take turns (hyperfine's is sequential).")
@click.option("--seed", "order_seed", type=click.IntRange(0, (1 << 63) - 1), default=0,
              help="The shuffle's seed (--order shuffled).")
@click.option("--save-baseline", "baseline", metavar="NAME", help="Name this run as a baseline.")
@click.option("--db", default=str(DEFAULT_DB), show_default=True)
@click.option("--out", "out_dir", type=click.Path(path_type=Path))
def command(**given) -> None:
    """Measure and compare commands as hyperfine 1.20 does: parbench exec 'cmd A' 'cmd B' …

    hyperfine's whole command line, its exit codes and its JSON, CSV, Markdown, AsciiDoc and
    org-mode exports; each run is a fresh process tree (wall, user and system CPU, the whole
    tree's peak memory), the shell's start-up subtracted as hyperfine does. Values substituted
    for {VAR} are shell-quoted. The output goes to /dev/null unread (--output=null, hyperfine's
    default) unless a check needs it (--expect, --expect-same, --check, --expect-file) or
    --output=pipe asks to digest it. See docs/exec.md.
    """
    _refuse_conflicts(given)
    exports = {k: v for k, v in given.items() if k.startswith("export_")}
    _refuse_output_beside_an_export(given, exports)
    try:
        settings = settings_for(given["runs"], given["min_runs"], given["max_runs"], given["timeout"],
                                memory_limit_for_exec(given["memory_limit"]), given["order"], given["order_seed"],
                                given["min_benchmarking_time"])
        extra = {k: given[k] for k in ("warmup", "runs", "min_runs", "max_runs", "timeout", "order",
                                       "time_unit", "style", "verbose")}
        options = _options(given)
        kind = ExecKind(options, settings, given["warmup"], {**extra, "seed": given["order_seed"]},
                        given["time_unit"], fit_request(given["fit"], options, given["refine"]))
    except (NotACommandLine, FitError) as error:      # FitError: --fit is parbench's own flag, a usage error
        raise click.UsageError(str(error)) from None
    except ExecError as error:
        raise Refused(str(error)) from None
    # Checked here first under exec's own flag names (--export-markdown is hyperfine's table), so
    # a refusal names the flags given; measure() checks the same again.
    check_export_targets({"export_" + EXPORT_FLAGS.get(k[len("export_"):].replace("_", "-"),
                                                       k[len("export_"):].replace("_", "-")).replace("-", "_"): v
                          for k, v in exports.items()}, given["out_dir"])
    try:
        measure(kind, given["db"], given["out_dir"], exports, given["baseline"], strict=True)
    except SystemExit as leaving:
        # A command that failed is a failed benchmark, exit 1 as in hyperfine (scripts test for it).
        sys.exit(EXIT_HYPERFINE_FAILURE if leaving.code == EXIT_FAILED_CASE else leaving.code)
