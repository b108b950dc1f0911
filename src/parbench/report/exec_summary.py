"""`parbench exec`'s report in hyperfine's shape: a block per command (median with its CI, mean
and σ, range, CPU and memory, whether its output was the same in every run), then how every
command compares with the fastest (or --reference), with the ratio's 95% CI."""
from __future__ import annotations

from rich.console import Console

from parbench.compare import compare
from parbench.escaping import styled
from parbench.records import CaseResult, RunRecord
from parbench.report.rows import failure_rows
from parbench.stats import grouped_samples
from parbench.units import format_bytes, format_duration

UNITS = {"second": 1e9, "millisecond": 1e6, "microsecond": 1e3}
SYMBOLS = {"second": "s", "millisecond": "ms", "microsecond": "µs"}


def duration(ns: float, unit: str | None) -> str:
    if unit is None:
        return format_duration(ns)
    return f"{ns / UNITS[unit]:.4g} {SYMBOLS[unit]}"


def command_block(number: int, result: CaseResult, unit: str | None) -> list[str]:
    s, run = result.stats, result.run
    name = result.case.model + (f" ({result.case.note})" if result.case.note else "")
    if s is None:
        return [f"Benchmark {number}: {name}", f"  {run.status}: {run.reason}"]
    processes = [p for p in run.processes if p.index >= 0 and p.outcome == "ok"]
    runs = len(processes) or 1
    digests = {r.checksum for r in run.repetitions if r.verified}
    output = "output identical in every run ✓" if len(digests) == 1 else f"{len(digests)} different outputs (--output-varies)"
    low, high = s.median_ci_ns
    return [f"Benchmark {number}: {name}",
            f"  Time (median, 95% CI):  {duration(s.median_ns, unit)}  [{duration(low, unit)} … {duration(high, unit)}]"
            f"    mean {duration(s.mean_ns, unit)} ± {duration(s.stdev_ns, unit)} (σ)    {s.n} runs",
            f"  Range (min … max):      {duration(s.min_ns, unit)} … {duration(s.max_ns, unit)}",
            f"  CPU per run: user {duration(sum(p.user_ns for p in processes) / runs, unit)}, system "
            f"{duration(sum(p.sys_ns for p in processes) / runs, unit)} · peak memory (whole tree) "
            f"{format_bytes(1024 * (s.peak_rss_kb or 0))} · {output}"]


def comparison_lines(results: list[CaseResult], reference_label: str | None) -> list[str]:
    measured = [r for r in results if r.stats is not None]
    if len(measured) < 2:
        return []
    reference = next((r for r in measured if r.case.model == reference_label), None) \
        or min(measured, key=lambda r: r.stats.median_ns)
    lines = [f"  '{reference.case.model}' ran"]
    for other in measured:
        if other is reference:
            continue
        c = compare(grouped_samples(other.run), grouped_samples(reference.run), reference.case.key)
        low, high = c.ratio_ci
        if not c.significant:
            lines.append(f"    no significant difference from '{other.case.model}' [{low:.2f}–{high:.2f}x]")
        elif c.ratio > 1:
            lines.append(f"    {c.ratio:.2f}x faster than '{other.case.model}' [{low:.2f}–{high:.2f}x]")
        else:
            lines.append(f"    {1 / c.ratio:.2f}x slower than '{other.case.model}' [{1 / high:.2f}–{1 / low:.2f}x]")
    return lines


def print_exec(record: RunRecord, console: Console, reference_label: str | None = None,
               unit: str | None = None) -> None:
    console.print()
    for number, result in enumerate(record.results, 1):
        for line in command_block(number, result, unit):
            console.print(line, highlight=False)
        console.print()
    lines = comparison_lines(record.results, reference_label)
    if lines:
        console.print(styled(("Comparison", "bold"), " (ratio of medians, 95% CI)"))
        for line in lines:
            console.print(line, highlight=False)
        console.print()
    for row in failure_rows(record):
        console.print(styled((row[1], "red"), f" {row[0]}: {row[2]} {row[3]}"), highlight=False)
