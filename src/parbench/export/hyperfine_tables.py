"""hyperfine's summary table in its three markup formats (Markdown, AsciiDoc, org-mode), cell for
cell as hyperfine 1.20 writes it: Command, Mean ± σ, Min, Max in one unit (--time-unit, else the
first command's), and the speed relative to the fastest mean. Scripts that read hyperfine's
`--export-markdown` read this; Markdown's table then has the median and its interval after
hyperfine's columns (a parser that reads hyperfine's five cells still finds them first).
parbench's whole report is `--export-report`."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from parbench.escaping import asciidoc_monospace, markdown_code_span, org_verbatim
from parbench.analysis.stats import MIN_RUNS_FOR_CI
from parbench.export.base import Exporter, Report
from parbench.export.views import RunOptions, options_of
from parbench.records import CaseResult

UNITS = {"second": ("s", 1.0, 3), "millisecond": ("ms", 1e3, 1), "microsecond": ("µs", 1e6, 1)}
COLUMNS = ("Command", "Mean", "Min", "Max", "Relative")
RIGHT = (False, True, True, True, True)
MEDIAN_COLUMNS = ("Median", "Interval of the median")


@dataclass(frozen=True)
class Markup:
    """How one markup language writes hyperfine's table."""
    header: Callable[[], str]
    row: Callable[[list[str]], str]
    divider: Callable[[], str]
    footer: Callable[[], str]
    command: Callable[[str], str]
    median: bool = False          # the median and its interval after hyperfine's columns


MARKDOWN = Markup(header=lambda: "", row=lambda cells: f"| {' | '.join(cells)} |\n",
                  divider=lambda: "|" + "".join("---:|" if right else ":---|" for right in RIGHT) + "---:|---:|\n",
                  footer=lambda: "", command=markdown_code_span, median=True)
ASCIIDOC = Markup(header=lambda: '[cols="' + ",".join(">" if right else "<" for right in RIGHT) + '"]\n|===',
                  row=lambda cells: "\n| " + " \n| ".join(cells) + " \n", divider=lambda: "",
                  footer=lambda: "|===\n", command=asciidoc_monospace)
ORGMODE = Markup(header=lambda: "", row=lambda cells: f"| {cells[0]}  |  {' |  '.join(cells[1:])} |\n",
                 divider=lambda: "|" + "--+" * (len(RIGHT) - 1) + "--|\n", footer=lambda: "",
                 command=org_verbatim)


def _unit(results: list[CaseResult], chosen: str | None) -> str:
    """--time-unit, else the first command's mean decides (hyperfine's rule)."""
    if chosen in UNITS:
        return chosen
    mean_s = results[0].stats.mean_ns * 1e-9 if results else 1.0
    return "microsecond" if mean_s < 0.001 else "millisecond" if mean_s < 1.0 else "second"


def _value(ns: float, unit: str) -> str:
    _, scale, digits = UNITS[unit]
    return f"{ns * 1e-9 * scale:.{digits}f}"


def _relative(result: CaseResult, fastest: CaseResult) -> str:
    """hyperfine's relative speed: this mean over the fastest's, ± the propagated σ (none for
    the fastest itself, or from a single run)."""
    s, f = result.stats, fastest.stats
    if s.mean_ns == 0:
        return f"{1.0 if result is fastest else math.inf:.2f}"
    ratio = s.mean_ns / f.mean_ns if f.mean_ns else math.inf
    if result is fastest or s.n < 2 or f.n < 2:
        return f"{ratio:.2f}"
    if not f.mean_ns:
        return "inf ± NaN"           # hyperfine's σ of a ratio against 0, as it prints it
    spread = ratio * math.hypot(s.stdev_ns / s.mean_ns, f.stdev_ns / f.mean_ns)
    return f"{ratio:.2f} ± {spread:.2f}"


def _median_cells(result: CaseResult, unit: str) -> list[str]:
    """The median, and the interval it is known within: its bootstrap 95 % CI from
    MIN_RUNS_FOR_CI runs on, else the range of the runs, named as such."""
    s = result.stats
    if s.n < MIN_RUNS_FOR_CI:
        low, high, name = s.min_ns, s.max_ns, f"range of {s.n} run{'s' if s.n != 1 else ''}"
    else:
        (low, high), name = s.median_ci_ns, "95% CI"
    return [_value(s.median_ns, unit), f"{_value(low, unit)} – {_value(high, unit)} ({name})"]


def _name(result: CaseResult) -> str:
    case = result.case
    return case.model if case.workload == "exec" else case.label


def table(markup: Markup, reports: list[Report]) -> str:
    options = options_of(reports[-1].record) if reports else RunOptions()
    results = [r for report in reports for r in report.record.results if r.stats is not None]
    unit = _unit(results, options.time_unit)
    if options.sort == "mean-time":
        results = sorted(results, key=lambda r: r.stats.mean_ns)
    fastest = min(results, key=lambda r: r.stats.mean_ns) if results else None
    symbol = UNITS[unit][0]
    medians = [f"{c} [{symbol}]" for c in MEDIAN_COLUMNS] if markup.median else []
    text = markup.header() + markup.row([COLUMNS[0], *(f"{c} [{symbol}]" for c in COLUMNS[1:4]), COLUMNS[4],
                                         *medians])
    text += markup.divider()
    for result in results:
        s = result.stats
        spread = f" ± {_value(s.stdev_ns, unit)}" if s.n > 1 else ""
        text += markup.row([markup.command(_name(result)), _value(s.mean_ns, unit) + spread,
                            _value(s.min_ns, unit), _value(s.max_ns, unit), _relative(result, fastest),
                            *(_median_cells(result, unit) if markup.median else [])])
    return text + markup.footer()


MARKDOWN_EXPORTER = Exporter("hyperfine-markdown", "md", "hyperfine's Markdown table",
                             lambda reports: table(MARKDOWN, reports))
ASCIIDOC_EXPORTER = Exporter("asciidoc", "adoc", "hyperfine's AsciiDoc table", lambda reports: table(ASCIIDOC, reports))
ORGMODE_EXPORTER = Exporter("orgmode", "org", "hyperfine's org-mode table", lambda reports: table(ORGMODE, reports))
EXPORTERS = (MARKDOWN_EXPORTER, ASCIIDOC_EXPORTER, ORGMODE_EXPORTER)
