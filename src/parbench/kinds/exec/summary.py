"""exec's console report in hyperfine's shape: a block per command (median with its interval,
mean and σ, range, CPU and memory, whether its output was the same in every run), then how
every command compares with the fastest (or --reference). An interval is named for what it is:
from fewer than MIN_RUNS_FOR_CI runs, the range of the runs, never a "95% CI"."""
from __future__ import annotations

from rich.console import Console

from parbench.analysis.compare import compare
from parbench.analysis.crossover import CrossoverResult
from parbench.analysis.per_task import PerTaskResult
from parbench.analysis.scaling import ScalingResult
from parbench.analysis.stats import MIN_RUNS_FOR_CI, grouped_samples
from parbench.escaping import one_line, styled
from parbench.records import Analysis, CaseResult, RunRecord
from parbench.report.console import print_analyses, print_group
from parbench.report.rows import drift_line
from parbench.report.rows import failure_rows, groups
from parbench.units import format_bytes, format_duration

# hyperfine's limit: below it a time is within the error of the shell's start-up it had subtracted.
FAST_NS = 5_000_000

UNITS = {"second": 1e9, "millisecond": 1e6, "microsecond": 1e3}
SYMBOLS = {"second": "s", "millisecond": "ms", "microsecond": "µs"}


def duration(ns: float, unit: str | None) -> str:
    if unit is None:
        return format_duration(ns)
    return f"{ns / UNITS[unit]:.4g} {SYMBOLS[unit]}"


def output_sentence(result: CaseResult) -> str:
    """Whether the output was the same in every run, where it was read, and what reading it cost;
    where it was not (--output=null), that the exit code is the proof of each run."""
    reps = result.run.repetitions
    if reps and not any(r.extra.get("output_read", True) for r in reps):
        return "output not read (--output=null: /dev/null, as hyperfine; --output=pipe digests it), exit code checked"
    digests = {r.checksum for r in reps}
    said = ("output identical in every run ✓" if len(digests) <= 1
            else f"output varies ({len(digests)} different outputs in {len(reps)} runs)")
    return said + reading_cost(reps)


def reading_cost(reps) -> str:
    """What reading the output took beside the command: its bytes, and the launcher's own CPU
    a run (digesting it, beside the sampling that every run has), where the launcher said so."""
    read = [r.extra for r in reps if "stdout_bytes" in r.extra]
    if not read:
        return ""
    size = sum(e["stdout_bytes"] for e in read) / len(read)
    cpu = sum(e.get("launcher_cpu_ns", 0) for e in read) / len(read)
    return f" (read: {format_bytes(size)} a run, the launcher's CPU {format_duration(cpu)} a run)"


def time_lines(result: CaseResult, unit: str | None) -> list[str]:
    s = result.stats
    mean = f"mean {duration(s.mean_ns, unit)} ± {duration(s.stdev_ns, unit)} (σ)"
    if s.n < MIN_RUNS_FOR_CI:
        return [f"  Time (median, range):   {duration(s.median_ns, unit)}  [{duration(s.min_ns, unit)} … "
                f"{duration(s.max_ns, unit)}]    {mean}    {s.n} run{'s' if s.n != 1 else ''} (too few for a "
                f"95% CI: at least {MIN_RUNS_FOR_CI})"]
    low, high = s.median_ci_ns
    return [f"  Time (median, 95% CI):  {duration(s.median_ns, unit)}  [{duration(low, unit)} … "
            f"{duration(high, unit)}]    {mean}    {s.n} runs",
            f"  Range (min … max):      {duration(s.min_ns, unit)} … {duration(s.max_ns, unit)}"]


def _title(result: CaseResult) -> str:
    """hyperfine's `Benchmark N: name`, with the command line (and any unused parameter) beside a name."""
    case = result.case
    title = case.note if case.note.startswith(case.model) else case.model + (f" ({case.note})" if case.note else "")
    return one_line(title)           # a command of several lines stays on the header's one line


def command_block(number: int, result: CaseResult, unit: str | None, shell_used: bool) -> list[str]:
    s, run = result.stats, result.run
    if s is None:
        return [f"Benchmark {number}: {_title(result)}", f"  {run.status}: {run.reason}"]
    reps = [r for r in run.repetitions if r.verified]
    runs = len(reps) or 1
    user = sum(r.extra.get("user_ns", 0) for r in reps) / runs
    system = sum(r.extra.get("sys_ns", 0) for r in reps) / runs
    lines = [f"Benchmark {number}: {_title(result)}", *time_lines(result, unit),
             f"  CPU per run: user {duration(user, unit)}, system {duration(system, unit)} · peak memory "
             f"(whole tree) {format_bytes(1024 * (s.peak_rss_kb or 0))} · {output_sentence(result)}"]
    if shell_used and s.min_ns < FAST_NS:
        lines.append(f"  Warning: a run took less than {format_duration(FAST_NS)} once the shell's start-up was "
                     "subtracted: its time is within that correction's own error (-N runs it without a shell)")
    return lines


def _against(other: CaseResult, reference: CaseResult) -> str:
    name = f"'{one_line(other.case.model)}'"
    if reference.stats.min_ns <= 0:
        return f"    no ratio with {name}: the reference's time is 0 once the shell's start-up is subtracted"
    if other.stats.median_ns <= 0:
        return f"    no ratio with {name}: its time is 0 once the shell's start-up is subtracted"
    if min(other.stats.n, reference.stats.n) < MIN_RUNS_FOR_CI:
        ratio = other.stats.median_ns / reference.stats.median_ns
        how = f"{ratio:.2f}x faster than" if ratio >= 1 else f"{1 / ratio:.2f}x slower than"
        return f"    {how} {name} (ratio of medians; fewer than {MIN_RUNS_FOR_CI} runs: no CI)"
    c = compare(grouped_samples(other.run), grouped_samples(reference.run), reference.case.key)
    low, high = c.ratio_ci
    if not c.significant:
        return f"    no significant difference from {name} [{low:.2f}–{high:.2f}x]"
    if c.ratio > 1:
        return f"    {c.ratio:.2f}x faster than {name} [{low:.2f}–{high:.2f}x]"
    return f"    {1 / c.ratio:.2f}x slower than {name} [{1 / high:.2f}–{1 / low:.2f}x]"


def comparison_lines(results: list[CaseResult], reference_key: str | None, by_command: bool) -> list[str]:
    """The reference (--reference, else the fastest) against every other command, fastest first
    (or as given with --sort command)."""
    measured = [r for r in results if r.stats is not None]
    if len(measured) < 2:
        return []
    reference = next((r for r in measured if r.case.key == reference_key), None) \
        or min(measured, key=lambda r: r.stats.median_ns)
    others = [r for r in measured if r is not reference]
    if not by_command:
        others.sort(key=lambda r: r.stats.median_ns)
    return [f"  '{one_line(reference.case.model)}' ran"] + [_against(other, reference) for other in others]


def shell_line(options: dict) -> str | None:
    startup = options.get("shell_startup")
    if not startup or not startup.get("runs"):
        return None
    return (f"Shell start-up ({options.get('shell')} -c '', mean of {startup['runs']} runs): "
            f"{format_duration(startup['wall_ns'])}, subtracted from every run (-N measures without a shell)")


def print_exec(record: RunRecord, console: Console, reference_key: str | None = None, unit: str | None = None,
               by_command: bool = False) -> None:
    console.print()
    if line := shell_line(record.options):
        console.print(line, highlight=False)
        console.print()
    shell_used = record.options.get("shell") != "none"
    for number, result in enumerate(record.results, 1):
        for line in command_block(number, result, unit, shell_used):
            console.print(line, highlight=False)
        console.print()
    lines = comparison_lines(record.results, reference_key, by_command)
    if lines:
        console.print(styled(("Comparison", "bold"), " (ratio of medians, 95% CI)"))
        for line in lines:
            console.print(line, highlight=False)
        console.print()
    for row in failure_rows(record):
        console.print(styled((row[1], "red"), f" {row[0]}: {row[2]} {row[3]}"), highlight=False)


FITS = ("scaling", "crossover", "per-task")


def _ci(ci, show=lambda v: f"{v:.3g}") -> str:
    return f" (95% CI {show(ci[0])} – {show(ci[1])})" if ci else " (no CI)"


def _workers(count: int) -> str:
    return f"{count} worker{'s' if count != 1 else ''}"


def _speedup_at(r: ScalingResult, i: int, between: str = " ") -> str:
    ci = r.speedup_ci[i] if r.speedup_ci else None
    return f"{_workers(r.workers[i])}{between}{r.speedup[i]:.2f}x{_ci(ci, lambda v: f'{v:.2f}x')}"


def sitting_line(r: ScalingResult) -> str:
    """How much of the asked cores the command got at each worker count (its CPU over its wall),
    and what the rest of the machine took: the sitting's quality, beside the answer it gave."""
    sitting = r.sitting or {}
    got = [f"{w}: {c:.2f}" for w, c in zip(sitting.get("workers", []), sitting.get("cores_got", [])) if c is not None]
    if not got:
        return ""
    others = [c for c in sitting.get("others_cores", []) if c is not None]
    steal = [c for c in sitting.get("steal_share", []) if c is not None]
    beside = (f"; the rest of the machine kept up to {max(others):.2f} cores busy" if others else "") + \
        (f", the hypervisor stole up to {max(steal):.2f} cores' worth" if steal else "")
    return f"  cores it ran on (CPU over wall), by workers asked: {', '.join(got)} of {r.cores} CPUs{beside}"


def scaling_answer(r: ScalingResult) -> list[str]:
    """The best worker count the machine's CPUs hold, where its speedup's CI lies above 1; a
    slowdown said as one; the serial fraction, or why this sitting cannot give one."""
    lines = []
    if line := sitting_line(r):
        lines.append(line)
    if r.no_parallelism:
        return [f"  no parallelism available: {r.no_parallelism}; no serial fraction from this sitting", *lines]
    within = [i for i, w in enumerate(r.workers) if w <= r.cores and w != 1]
    beyond = [i for i, w in enumerate(r.workers) if w > r.cores]
    ci_low = lambda i: r.speedup_ci[i][0] if r.speedup_ci else r.speedup[i]
    ci_high = lambda i: r.speedup_ci[i][1] if r.speedup_ci else r.speedup[i]
    faster = [i for i in within if ci_low(i) > 1]
    slower = [i for i in within if ci_high(i) < 1]
    if faster:
        best = max(faster, key=lambda i: r.speedup[i])
        lines.insert(0, f"  best at {_speedup_at(r, best, ': ')} over 1 worker, efficiency {100 * r.efficiency[best]:.0f}%")
    elif slower:
        lines.insert(0, "  slower with more workers: " + "; ".join(_speedup_at(r, i) for i in slower) + " over 1 worker")
    elif within:
        lines.insert(0, "  no significant speedup at any worker count up to the machine's CPUs: "
                     + "; ".join(_speedup_at(r, i) for i in within) + " (each interval holds 1x)")
    if beyond:
        lines.append(f"  beyond the machine's {r.cores} CPUs (shown, not fitted, never a best): "
                     + "; ".join(_speedup_at(r, i) for i in beyond))
    if r.amdahl:
        f, ci = r.amdahl.params["f"], r.amdahl.ci["f"]
        bound = " — the law's bound: Amdahl's law has no slowdown, so f says only \"no gain\"" \
            if f >= 0.999 and (slower or not faster) else ""
        lines.append(f"  serial fraction (Amdahl) f = {f:.3f}{_ci(ci, lambda v: f'{v:.3f}')}{bound}")
    if r.usl and r.peak_workers and r.peak_workers < max(r.workers):
        lines.append(f"  USL retrograde: the fitted speedup peaks at {r.peak_speedup:.2f}x near {r.peak_workers:.1f} "
                     "workers and falls beyond")
    elif r.peak_workers:
        lines.append(f"  USL peak (prediction): {r.peak_speedup:.2f}x at {r.peak_workers:.1f} workers")
    return lines


def crossover_answer(r: CrossoverResult) -> list[str]:
    if r.crossover is None:
        return [f"  no crossover in {r.param} {r.sizes[0]:,.0f} – {r.sizes[-1]:,.0f}: {r.verdict}"]
    if r.crossover <= r.sizes[0]:
        return [f"  faster from the smallest {r.param} measured ({r.sizes[0]:,.0f})"]
    return [f"  faster from {r.param} ≈ {r.crossover:,.0f}{_ci(r.crossover_ci, lambda v: f'{v:,.0f}')}"]


def per_unit_answer(r: PerTaskResult) -> list[str]:
    lines = []
    if r.time_per_unit_ns:
        t = r.time_per_unit_ns
        lines.append(f"  time per {r.param}: {format_duration(t.per_unit)}{_ci(t.per_unit_ci, format_duration)}")
    if r.bytes_per_unit:
        b = r.bytes_per_unit
        lines.append(f"  peak memory (whole tree) per {r.param}: {format_bytes(b.per_unit)}"
                     f"{_ci(b.per_unit_ci, format_bytes)}")
    if r.largest_ok is not None:
        lines.append(f"  largest {r.param} that ran: {r.largest_ok:,}")
    if r.failure:
        lines.append(f"  {r.param} = {r.failure['n']:,} failed: {r.failure['outcome']}: {r.failure['detail']}")
    return lines


ANSWERS = {"scaling": scaling_answer, "crossover": crossover_answer, "per-task": per_unit_answer}


def print_answer(analyses: list[Analysis], console: Console) -> None:
    """exec --fit's answer before any table: per command line, what its sweep says, and the
    machine's drift over the sitting beside it."""
    found = [(name, subject, result) for name, subject, result in analyses if name in ANSWERS
             and not isinstance(result, dict)]
    console.print()
    if not found:
        console.print(styled(("Answer", "bold"), ": none (too few points measured: see the failures below)"))
        return
    console.print(styled(("Answer", "bold"), ""))
    for name, subject, result in found:
        console.print(one_line(subject), highlight=False, soft_wrap=True)
        for line in ANSWERS[name](result):
            console.print(one_line(line), highlight=False, soft_wrap=True)
    if line := drift_line(analyses):
        console.print(f"  {line}", highlight=False, soft_wrap=True)


# The points' table's columns left out, in this order, until it fits the terminal (--verbose keeps
# them all, as every export does): first those a user's command has no figure for, then what
# hyperfine's blocks above already say; the case, its median and ✓ always stay.
DROP_TO_FIT = ("vs ceiling", "overlap", "steady state", "items/s", "ips", "family", "99th %", "average",
               "deviation", "peak memory (tree)", "CPU", "95% CI of median")


def print_points(record: RunRecord, analyses: list[Analysis], console: Console, verbose: bool = False) -> None:
    """Each parameter set's table, as `parbench sweep` prints it, after the answer and the blocks."""
    for group in groups(record):
        print_group(group, console, analyses, () if verbose else DROP_TO_FIT,
                    "--verbose and every export keep them")


def print_fits(analyses: list[Analysis], console: Console) -> None:
    """The fits' tables after the commands' blocks, as `parbench sweep` prints them."""
    print_analyses([a for a in analyses if a[0] in FITS], console)
    if line := drift_line(analyses):
        console.print(line, highlight=False)
