"""The HTML report (`--export-html`, `parbench report --html`): one self-contained page (inline CSS and SVG, no scripts, no network) that
opens with the answer (a heat map of each runtime's best model against its seq), then the seed
articles beside this machine, every workload's tables and plots, and the metadata."""
from __future__ import annotations

import math

import numpy as np

from parbench.analysis.amdahl_shares import AmdahlShares, predicted_speedup
from parbench.analysis.command_sweeps import Unfitted
from parbench.analysis.crossover import CrossoverResult
from parbench.analysis.per_task import PerTaskResult
from parbench.analysis.scaling import ScalingResult, amdahl, usl
from parbench.analysis.steady_state import is_marked
from parbench.escaping import html_text as escape      # the one HTML escape (escaping.py)
from parbench.export.base import Exporter, Report
from parbench.export.views import (AmdahlParams, Cluster, Machine, NextSizeFailure, UslParams, machine_of, options_of,
                                   runtimes_of, start_mode, view)
from parbench.records import CaseResult, RunRecord
from parbench.report import advise_panel, seeds as seeds_module
from parbench.report import svg
from parbench.report.analyses import tables as analysis_tables
from parbench.report.rows import (COLUMNS, drift_line, drift_mark, kernel_note, machine_ceiling_of, STARTUP_COLUMNS, Group, ceiling_note, comparison_lines, failure_rows,
                                  groups, measured_row, one_worker, outlier_note, override_lines,
                                  startup_rows)
from parbench.report.summary import Cell, Row, anchor_of, summary
from parbench.units import format_bytes, format_duration, format_per_item
from parbench.workloads import in_report_order, load_all_cached


CSS = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; max-width: 1280px;
       padding: 0 20px 40px; color: #222; }
h1 { margin-bottom: 4px; } h2 { border-bottom: 2px solid #0072B2; padding-bottom: 2px; margin-top: 36px; }
h3 { margin: 22px 0 6px; font-size: 15px; }
nav { position: sticky; top: 0; background: #fff; padding: 6px 0; border-bottom: 1px solid #ddd; z-index: 1; }
nav a { margin-right: 14px; text-decoration: none; color: #0072B2; }
.meta { color: #555; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; margin: 6px 0 10px; font-size: 13px; }
th, td { border: 1px solid #ddd; padding: 3px 7px; vertical-align: top; }
th { background: #f4f6f8; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.failed td { background: #fdecea; color: #8b1e14; }
tr.limit td { background: #fff6e0; color: #7a5a00; }
.outcome { font-weight: 600; text-transform: uppercase; font-size: 11px; }
.plots { display: flex; flex-wrap: wrap; gap: 14px; align-items: flex-start; }
figure { margin: 6px 0; } figcaption { font-size: 12px; color: #444; max-width: 560px; }
.note { color: #555; font-size: 12px; margin: 2px 0; }
.missing { color: #666; font-size: 13px; }
code { background: #f4f4f4; padding: 1px 4px; border-radius: 3px; font-size: 12px; }
.seed { margin-bottom: 18px; } .better { color: #1b7a3a; } .worse { color: #8b1e14; }
.group { scroll-margin-top: 44px; } .group:target > h3 { background: #fff3b0; } section { scroll-margin-top: 40px; }
td[data-col="case"] { white-space: nowrap; } td[data-col^="cluster"] { min-width: 170px; }
.badge { display: inline-block; margin-left: 4px; padding: 0 4px; border-radius: 3px; font-size: 11px;
         background: #fff0c2; color: #6b4e00; white-space: nowrap; }
details.unmeasured summary { cursor: pointer; color: #555; font-size: 13px; }
details.how summary { cursor: pointer; color: #555; font-size: 12px; margin: 4px 0; }
table.summary { border-collapse: separate; border-spacing: 3px; margin: 4px 0 16px; }
.summaries { display: flex; flex-wrap: wrap; gap: 4px 28px; align-items: flex-start; }
.run-summary h3 { margin: 10px 0 2px; font-size: 14px; }
table.summary th { border: none; background: none; font-size: 13px; text-align: center; }
table.summary th.row { text-align: right; white-space: nowrap; font-weight: 600; vertical-align: middle; }
table.summary th.row a { color: #222; text-decoration: none; }
td.heat { border: 1px solid #ccc; border-radius: 4px; padding: 0; width: 190px; text-align: center;
          vertical-align: middle; background: #fff; }
td.heat a { display: block; padding: 5px 6px; color: inherit; text-decoration: none; min-height: 58px; }
td.heat a:hover { outline: 2px solid #222; outline-offset: -2px; border-radius: 4px; }
td.heat span { display: block; }
td.heat span.head span, td.heat span.big span, td.heat span.rival span { display: inline; }
td.heat.same .big, td.heat.no-seq .big { font-weight: 400; }
td.heat span.badge { display: inline-block; margin: 1px 0 0; }
td.heat .head { font-size: 12px; } td.heat .model { font-weight: 600; }
td.heat .big { font-size: 19px; font-weight: 700; line-height: 1.25; }
td.heat .big .ci { font-size: 11px; font-weight: 400; }
td.heat .rival, td.heat .small { font-size: 11px; line-height: 1.3; }
td.heat .star { color: #b8860b; } td.heat[style] .star { color: inherit; }
td.heat.same, td.heat.no-seq, td.heat.seq-only, .swatch.same { background: #e4e4e4; color: #444; }
td.heat.failed, .swatch.failed { background: repeating-linear-gradient(135deg, #fbe4e1 0 6px, #f3c4bd 6px 12px);
                                 color: #8b1e14; border-color: #d98c82; }
td.heat.limit, .swatch.limit { background: repeating-linear-gradient(135deg, #fff4d6 0 6px, #fbe2a0 6px 12px);
                               color: #6b4e00; border-color: #d9b65a; }
td.heat .outcome { text-transform: uppercase; font-size: 15px; }
td.heat .reason { display: -webkit-box; -webkit-line-clamp: 3; -webkit-box-orient: vertical; overflow: hidden; }
td.heat.absent { color: #aaa; border-style: dashed; }
.legend { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; font-size: 12px; margin: 6px 0 10px; }
.legend .ramp { display: inline-flex; align-items: center; gap: 0; }
.legend .ramp .swatch:first-child { margin-left: 6px; } .legend .ramp .swatch:last-child { margin-right: 6px; }
.legend .ramp .swatch { margin: 0; border-radius: 0; min-width: 30px; text-align: center; }
.swatch { display: inline-block; padding: 2px 7px; border: 1px solid #ccc; border-radius: 3px; margin: 0 4px; }
@media print {
  nav { display: none; } body { max-width: none; padding: 0; }
  section.page { break-before: page; } figure, table { break-inside: avoid; }
  svg.plot { max-width: 100%; height: auto; }
}
"""


# --- small HTML helpers ---------------------------------------------------------------------
def _table(header: list[str], rows: list[list[str]], cls: str = "", numeric: set[str] = frozenset()) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in header)
    body = []
    for row in rows:
        cells = "".join(f'<td{" class=num" if header[i] in numeric else ""}>{escape(str(c))}</td>'
                        for i, c in enumerate(row))
        body.append(f"<tr>{cells}</tr>")
    return f'<div class="scroll"><table class="{cls}"><tr>{head}</tr>{"".join(body)}</table></div>'


def _figure(plot: str, caption: str) -> str:
    return f'<figure>{plot}<figcaption>{escape(caption)}</figcaption></figure>'


def _notes(lines: list[str]) -> str:
    return "".join(f'<p class="note">{escape(line)}</p>' for line in lines if line)


def _anchor(name: str) -> str:
    return "w-" + "".join(ch if ch.isalnum() else "-" for ch in name)


DURATION = svg.Axis("time", format_duration)


# --- a group of directly comparable cases ---------------------------------------------------
CLUSTER_COLUMN = "cluster start-up (not timed)"


def _cluster(result: CaseResult) -> Cluster:
    """The cluster of a case, as its first verified repetition tells it."""
    return view(Cluster, next((r.extra for r in result.run.repetitions if r.verified), {}))


def cluster_start_ns(result: CaseResult) -> float | None:
    """The median time its cluster took to start (None: the case ran no cluster)."""
    starts = [view(Cluster, r.extra).cluster_start_ns for r in result.run.repetitions if r.verified]
    starts = [ns for ns in starts if isinstance(ns, (int, float))]
    return float(np.median(starts)) if starts else None


def cluster_text(result: CaseResult) -> str:
    """A distributed case's cluster, apart from its timing: "1.07 s · local, 2 workers"."""
    start = cluster_start_ns(result)
    if start is None:
        return "–"
    cluster = _cluster(result)
    parts = [("connect " if cluster.cluster == "remote" else "") + format_duration(start)]
    size = cluster.cluster_workers or cluster.nodes
    noun = "workers" if cluster.cluster_workers is not None else "nodes"
    parts.append(", ".join(str(p) for p in (cluster.cluster, f"{size} {noun}" if size else None) if p))
    if cluster.cross_node_hops:
        parts.append(f"{cluster.cross_node_hops:,} cross-node hops")
    if cluster.cluster == "remote":
        parts.append("its memory not measured")
    return " · ".join(p for p in parts if p)


def cluster_note(result: CaseResult) -> str:
    """What the figures of a distributed case leave out, and whether its memory includes the cluster."""
    start = cluster_start_ns(result)
    if start is None:
        return ""
    if _cluster(result).cluster == "remote":
        return (f"connects to a remote cluster in {format_duration(start)} (median, extra.cluster_start_ns), "
                "outside the timing; the cluster's memory is not measured: peak RSS is this machine's client only")
    return (f"its cluster starts in {format_duration(start)} (median, extra.cluster_start_ns) before the timed "
            "region and is left out of every time above; its processes are children of the run, so peak RSS "
            "(tree) includes them")


def _case_cell(result: CaseResult) -> str:
    badge = ' <span class="badge">ran on 1 worker</span>' if one_worker(result) else ""
    return f'<td data-col="case">{escape(result.case.label)}{badge}</td>'


def results_table(record: RunRecord, group: Group, machine: dict | None = None) -> str:
    """The console's table, plus a row per case that produced no timing, saying why; a
    distributed case's cluster start-up gets a column of its own, apart from the work."""
    distributed = any(cluster_start_ns(r) is not None for r in group.results)
    columns = COLUMNS + ([CLUSTER_COLUMN] if distributed else [])
    rows = {r.case.key: measured_row(r, machine) for r in group.results if r.stats is not None}
    # A user's commands have no figure for some columns (vs ceiling, overlap, steady state):
    # a column that is "–" in every row is left out of their table, which then fits the page.
    empty = {c for i, c in enumerate(COLUMNS) if group.workload == "exec" and rows
             and all(row[i] == "–" for row in rows.values())}
    head = "".join(f"<th>{escape(c)}</th>" for c in columns if c not in empty)
    body = []
    for result in group.results:
        key = escape(result.case.key, quote=True)
        if result.stats is not None:
            values = rows[result.case.key][1:] + ([cluster_text(result)] if distributed else [])
            if _cluster(result).cluster == "remote":     # its workers are not this run's
                values[COLUMNS.index("peak memory (tree)") - 1] += " (client only)"
            cells = "".join(
                f'<td data-col="{escape(column, quote=True)}"{" class=num" if 0 < i < len(COLUMNS) - 1 else ""}>'
                f"{escape(value)}</td>" for i, (column, value) in enumerate(zip(columns[1:], values))
                if column not in empty)
            body.append(f'<tr data-case="{key}">{_case_cell(result)}{cells}</tr>')
        else:
            status = result.run.status
            cls = "limit" if status == "limit" else "failed"
            body.append(f'<tr class="{cls}" data-case="{key}" data-outcome="{escape(status, quote=True)}">'
                        f'<td data-col="case">{escape(result.case.label)}</td><td>{escape(result.case.family)}</td>'
                        f'<td colspan="{len(columns) - 2 - len(empty)}"><span class="outcome">{escape(status)}</span> '
                        f"{escape(result.run.reason)}</td></tr>")
    return (f'<div class="scroll"><table class="results" data-run="{record.id}">'
            f"<tr>{head}</tr>{''.join(body)}</table></div>")


def distribution_plot(group: Group) -> str:
    rows = []
    for result in group.results:
        if result.stats is not None:
            samples = [r.ns for r in result.run.repetitions if r.verified]
            rows.append(svg.BoxRow(result.case.label, samples, colour=svg.colour_of(result.case.runtime)))
        else:
            rows.append(svg.BoxRow(result.case.label, (), result.run.status, result.run.reason))
    return svg.box_plot(f"Distribution of every verified repetition — {group.title}", rows, DURATION)


def detail_anchor(record: RunRecord, anchor: str) -> str:
    """A table's anchor on the page: the summary's, made unique per run (a page may hold several)."""
    return f"{anchor}-run{record.id}"


def group_section(record: RunRecord, group: Group, analyses: list | None = None) -> str:
    measured = [r for r in group.results if r.stats is not None]
    mark, machine = drift_mark(group, analyses), machine_ceiling_of(group, analyses)
    out = [f'<div class="group" id="{detail_anchor(record, anchor_of(group))}">'
           f"<h3>{escape(group.title)} <span class=meta>· run {record.id} ({escape(record.kind)}, "
           f"scale {escape(record.scale)})</span></h3>"
           + (f'<p class="drift-mark">⚠ {escape(mark)}</p>' if mark else ""), results_table(record, group, machine)]
    out.append(_notes([f"{r.case.label}: " + "; ".join(notes) for r in measured
                       if (notes := [n for n in (outlier_note(r), ceiling_note(r, machine), kernel_note(r),
                                                 cluster_note(r)) if n])]))
    described = [r for r in group.results if r.case.note]
    if described:
        out.append(f'<details class="how"><summary>How each case works ({len(described)} notes)</summary>'
                   + _notes([f"{r.case.label}: {r.case.note}" for r in described]) + "</details>")
    side = []
    lines = comparison_lines(group)
    if len(lines) > 1:
        side.append(_table(["case", "vs fastest (ratio of medians, 95% CI)", "vs its runtime's seq"],
                           [list(line) for line in lines], "comparison"))
    side.append(_figure(distribution_plot(group),
                        "Box: quartiles and median; whiskers: 1.5 IQR (Tukey); rings: outliers, kept in every "
                        "statistic. A case without a verified timing shows its outcome instead."))
    out.append(f'<div class="plots">{"".join(side)}</div></div>')
    return "\n".join(out)


# --- plots from the analyses ----------------------------------------------------------------
def _failed_at(record: RunRecord, workload: str, runtime: str, model: str, attribute) -> list[svg.Failure]:
    return [svg.Failure(float(attribute(r)), r.run.status, f"{r.case.key}: {r.run.status}: {r.run.reason}")
            for r in record.results
            if (r.case.workload, r.case.runtime, r.case.model) == (workload, runtime, model)
            and r.run.status != "ok" and attribute(r) is not None]


def scaling_plot(record: RunRecord, subject: str, r: ScalingResult) -> str:
    workers = r.workers
    extent = max(max(workers) * 2, r.cores or 1)
    series = [svg.Series("measured speedup" + (" (bars: 95% CI)" if r.speedup_ci else ""),
                         list(zip(workers, r.speedup)), errors=r.speedup_ci)]
    if r.speedup_vs_seq:
        series.append(svg.Series("measured, vs the runtime's seq", list(zip(workers, r.speedup_vs_seq)),
                                 "points"))
    series.append(svg.Series("ideal (linear)", [(1, 1), (extent, extent)], "curve", "#999999"))
    if r.amdahl:
        f = view(AmdahlParams, r.amdahl.params).f
        series.append(svg.Series(f"Amdahl fit, f = {f:.3f}", svg.sample_curve(lambda p: amdahl(p, f), 1, extent),
                                 "curve", svg.PALETTE[len(series) % len(svg.PALETTE)]))
        if (f_ci := view(AmdahlParams, r.amdahl.ci)) and f_ci.f:     # f's 95 % interval: the speedups it allows
            f_low, f_high = f_ci.f
            series.append(svg.Series(f"Amdahl, f's 95% CI {f_low:.3f} – {f_high:.3f}",
                                     svg.sample_curve(lambda p: amdahl(p, f_high), 1, extent), "band",
                                     series[-1].colour,
                                     upper=svg.sample_curve(lambda p: amdahl(p, f_low), 1, extent)))
    if r.usl:
        law = view(UslParams, r.usl.params)
        sigma, kappa = law.sigma, law.kappa
        series.append(svg.Series(f"USL fit, σ = {sigma:.3g}, κ = {kappa:.3g}",
                                 svg.sample_curve(lambda p: usl(p, sigma, kappa), 1, extent), "curve"))
    markers = []
    if r.peak_workers and r.peak_workers <= extent:
        markers.append(svg.Marker(r.peak_workers, f"USL peak {r.peak_speedup:.2f}x"))
    failures = _failed_at(record, r.workload, r.runtime, r.model, lambda c: c.case.workers)
    return svg.line_plot(f"Speedup vs workers — {subject}", svg.Axis("workers"), svg.Axis("speedup", lambda v: f"{v:g}x"),
                         series, markers, failures, y_from_zero=True)


def crossover_plot(record: RunRecord, subject: str, r: CrossoverResult) -> str:
    # A user's commands (exec --fit size): {size} is what the command line makes of it, and the
    # first command stands where seq stands.
    of_commands = r.workload == "exec"
    size_format = format_bytes if r.param == "size" and not of_commands else (lambda v: f"{v:,.0f}")
    label = f"{r.model} {r.start}".strip()
    baseline = f"{r.against or 'the first command'} median" if of_commands else "seq median"
    series = [svg.Series(baseline, list(zip(r.sizes, r.seq_median_ns))),
              svg.Series(f"{label} median", list(zip(r.sizes, r.parallel_median_ns)))]
    series += [svg.Series(f"{r.model} {mode} median", points) for mode, points in _other_modes(record, r).items()]
    markers = []
    if r.crossover:
        markers.append(svg.Marker(r.crossover, f"crossover ≈ {size_format(r.crossover)}", r.crossover_ci))
    failures = _failed_at(record, r.workload, r.runtime, r.model,
                          lambda c: c.case.params.get(r.param) if isinstance(c.case.params.get(r.param), (int, float)) else None)
    return svg.line_plot(f"Time vs {r.param} — {subject}", svg.Axis(r.param, size_format, log=True),
                         svg.Axis("median time", format_duration, log=True), series, markers, failures)


def _other_modes(record: RunRecord, r: CrossoverResult) -> dict[str, list[tuple[float, float]]]:
    """The same model's medians in its other start modes, at each swept value: drawn beside the
    mode the crossover is about, so that a plot shows both."""
    found: dict[str, list[tuple[float, float]]] = {}
    for result in record.results:
        case = result.case
        mode = start_mode(case)
        if ((case.workload, case.runtime, case.model) != (r.workload, r.runtime, r.model) or not mode
                or mode == r.start or result.stats is None or not isinstance(case.params.get(r.param), (int, float))
                or any(case.params.get(k) != v for k, v in r.params.items())):
            continue
        found.setdefault(mode, []).append((case.params[r.param], result.stats.median_ns))
    return {mode: sorted(points) for mode, points in found.items()}


def per_task_plots(subject: str, r: PerTaskResult) -> list[str]:
    counts = r.counts
    failure = view(NextSizeFailure, r.failure) if r.failure else None
    failures = [svg.Failure(failure.n, failure.outcome, f"{failure.outcome}: {failure.detail}")] if failure else []
    count_axis = svg.Axis(r.param, lambda v: f"{v:,.0f}")
    plots = []
    measures = (("peak RSS", r.peak_rss_bytes, r.bytes_per_unit, format_bytes),
                ("median time", r.median_ns, r.time_per_unit_ns, format_duration))
    for what, values, slope, fmt in measures if counts else measures[:1]:   # nothing ran: one plot says so
        series = [svg.Series(f"measured {what}", list(zip(counts, values)), "points")]
        if slope:
            top = max(counts + ([failure.n] if failure else []))
            line = [(0.0, slope.intercept), (float(top), slope.intercept + slope.per_unit * top)]
            series.append(svg.Series(f"slope: {fmt(slope.per_unit)} per {r.param} unit "
                                     f"+ {fmt(slope.intercept)}", line, "curve"))
        plots.append(svg.line_plot(f"{what[0].upper() + what[1:]} vs {r.param} — {subject}", count_axis,
                                   svg.Axis(what, fmt), series, failures=failures, width=460, y_from_zero=True))
    return plots


def amdahl_shares_plot(subject: str, r: AmdahlShares) -> str:
    top = max([row.workers for row in r.rows] + [2])
    series = [svg.Series("Amdahl prediction from seq's CPU/I-O split",
                         svg.sample_curve(lambda w: np.array([predicted_speedup(r.cpu_share, r.io_share, x)
                                                              for x in w]), 1, top * 2), "curve")]
    for row in r.rows:
        series.append(svg.Series(f"{row.case} (achieved)", [(row.workers, row.achieved_speedup)], "points"))
    return svg.line_plot(f"Amdahl from CPU and I/O shares — {subject}", svg.Axis("CPU workers"),
                         svg.Axis("speedup vs seq", lambda v: f"{v:g}x"), series, y_from_zero=True)


# The analyses about one workload that its section shows, each with its plot.
PLOTTED = (ScalingResult, CrossoverResult, PerTaskResult, AmdahlShares, Unfitted)


def analysis_section(record: RunRecord, name: str, subject: str, r: ScalingResult | CrossoverResult | PerTaskResult | AmdahlShares) -> str:
    title, header, rows, notes = analysis_tables([(name, subject, r)])[0]
    if name == "scaling":
        plots = [_figure(scaling_plot(record, subject, r), "Dots: measured; dashed: fitted laws, extended "
                         "beyond the measured workers as predictions; crosses: worker counts that failed.")]
    elif name == "crossover":
        plots = [_figure(crossover_plot(record, subject, r), r.verdict)]
    elif name == "per-task":
        plots = [_figure(p, "Slope of a least-squares line: the cost of one more unit, baseline removed. "
                         "A cross marks the count that failed, with its outcome.") for p in per_task_plots(subject, r)]
    elif name == "amdahl-shares":
        plots = [_figure(amdahl_shares_plot(subject, r), notes[0] if notes else "")]
    else:
        plots = []
    return (f"<h3>{escape(title)} <span class=meta>· run {record.id}</span></h3>"
            f'<div class="plots">{"".join(plots)}</div>' + _table(header, rows, "analysis") + _notes(notes))


# --- the answer first: the summary as a heat map --------------------------------------------
HEAT_SPAN = 3.0                  # log2: 8× faster or slower than seq is the full colour
FASTER_RGB, SLOWER_RGB = (33, 102, 172), (179, 88, 6)    # blue and orange stay apart in every common
                                                         # colour-vision deficiency
VERDICT_NOTE = {"no-seq": "no seq in this table to compare with", "seq-only": "only seq measured"}


def heat_colour(heat: float) -> tuple[str, str]:
    """(background, text) for a log2 speedup: white at 1×, blue above, orange below."""
    strength = min(abs(heat) / HEAT_SPAN, 1.0) ** 0.7     # small but significant gains stay visible
    end = FASTER_RGB if heat > 0 else SLOWER_RGB
    return "#" + "".join(f"{round(255 + (e - 255) * strength):02x}" for e in end), (
        "#ffffff" if strength > 0.6 else "#1a1a1a")


def _speedup(cell: Cell, cls: str) -> str:
    """"1.85× [1.46–2.25]", or "≈ 1.13× n.s. [0.17–3.23]" where the CI holds 1."""
    low, high = cell.speedup_ci or (cell.speedup, cell.speedup)
    about, mark = ("", "") if cell.significant else ("≈ ", "n.s. ")
    return (f'<span class="big">{about}<span class="{cls}">{cell.speedup:.2f}×</span> '
            f'<span class="ci">{mark}[{low:.2f}–{high:.2f}]</span></span>')


def _cell_flags(cell: Cell) -> list[str]:
    flags = []
    if cell.cluster == "remote":
        flags.append(f"remote cluster: connect {format_duration(cell.cluster_start_ns)}, not timed; "
                     "its memory not measured")
    elif cell.cluster_start_ns is not None:
        flags.append(f"+ cluster start-up {format_duration(cell.cluster_start_ns)}, not timed")
    if cell.failed:
        flags.append("no timing: " + ", ".join(f"{model} ({outcome})" for model, outcome in cell.failed))
    return flags


def _measured_cell_body(cell: Cell) -> str:
    """The winner on top; the big figure is always the speedup the colour shows."""
    marked = is_marked(cell.steady)
    star = '<span class="star" title="the fastest case of this table">★</span> ' if cell.fastest else ""
    if marked:
        star += f'<span class="steady-mark" title="{escape(cell.steady, quote=True)}">⚠</span> '
    lines = [f'<span class="head">{star}<span class="model">{escape(cell.model)}</span> · '
             f'<span class="median">{format_duration(cell.median_ns)}</span></span>']
    if cell.steady:
        first = f" · 1st {format_duration(cell.first_ns)}" if cell.first_ns is not None else ""
        lines.append(f'<span class="small steady" data-steady="{escape(cell.steady, quote=True)}">'
                     f"{escape(cell.steady.split(':')[0])}{first}</span>")
    if cell.baseline and cell.rival is not None:
        rival = cell.rival
        lines.append(f'<span class="small rival">seq wins; next best: <span class="rival-model">'
                     f'{escape(rival.model)}</span> · <span class="rival-median">'
                     f"{format_duration(rival.median_ns)}</span></span>")
        lines.append(_speedup(rival, "rival-speedup"))
    elif cell.speedup is not None and not cell.baseline:
        lines.append(_speedup(cell, "speedup"))
    if cell.verdict in ("no-seq", "seq-only"):
        lines.append(f'<span class="small">{VERDICT_NOTE[cell.verdict]}</span>')
    for who, flagged in (("", cell.one_worker), ("next best ", cell.rival is not None and cell.rival.one_worker)):
        if flagged:
            lines.append(f'<span class="small"><span class="badge">{who}ran on 1 worker</span></span>')
    lines += [f'<span class="small flag">{escape(flag)}</span>' for flag in _cell_flags(cell)]
    return "".join(lines)


def heat_cell(href: str, cell: Cell) -> str:
    """One runtime in one table: coloured by its verdict, linking to the table's details."""
    verdict = cell.verdict
    if verdict == "absent":
        return '<td class="heat absent" data-verdict="absent">–</td>'
    style = ""
    if cell.heat is not None:
        background, text = heat_colour(cell.heat)
        style = f' style="background:{background};color:{text}"'
    if cell.case_key is None:
        reason = cell.failure.split(": ", 1)[-1]           # the outcome is already the big word
        body = (f'<span class="big outcome">{escape(cell.outcome)}</span>'
                f'<span class="small reason">{escape(reason)}</span>')
    else:
        body = _measured_cell_body(cell)
    heat = f' data-heat="{cell.heat:.3f}"' if cell.heat is not None else ""
    return (f'<td class="heat {verdict}" data-runtime="{escape(cell.runtime, quote=True)}" '
            f'data-verdict="{verdict}"{heat}{style} title="{escape(cell.text(), quote=True)}">'
            f'<a href="#{href}">{body}</a></td>')


def heat_legend() -> str:
    """The ramp in the very colours the cells get, then the styles that are not a speedup."""
    fractions = {-3: "⅛", -2: "¼", -1: "½"}
    ramp = "".join(f'<span class="swatch" style="background:{heat_colour(h)[0]};color:{heat_colour(h)[1]}">'
                   f'{fractions.get(h, f"{2 ** h:g}")}×</span>' for h in range(-3, 4))
    return (f'<div class="legend"><span class="ramp">slower than seq {ramp} faster than seq</span>'
            '<span class="swatch same">≈ seq (n.s.) or no seq</span>'
            '<span class="swatch limit">limit</span><span class="swatch failed">failed</span></div>')


def summary_table(record: RunRecord, runtimes: list[str], rows: list[Row], drift: str = "") -> str:
    head = "".join(f"<th>{escape(r)}</th>" for r in runtimes)
    body = []
    for row in rows:
        href = detail_anchor(record, row.anchor)
        cells = "".join(heat_cell(href, cell) for cell in row.cells)
        body.append(f'<tr data-anchor="{href}"><th class="row"><a href="#{href}">{escape(row.title)}</a></th>'
                    f"{cells}</tr>")
    swept = options_of(record).sweep
    sweep = f" ({escape(str(swept))})" if swept else ""
    return (f'<div class="scroll run-summary"><h3>Run {record.id} · {escape(record.kind)}{sweep} · scale '
            f'{escape(record.scale)}</h3>' + (f'<p class="drift">{escape(drift)}</p>' if drift else "")
            + f'<table class="summary" data-run="{record.id}"><tr><th></th>{head}</tr>{"".join(body)}</table></div>')


def across_cell(href: str, cell: Cell, row: Row) -> str:
    """One runtime in one row, coloured by its median's ratio to the row's fastest runtime (white
    for the fastest and its ties, orange as it gets slower); grey where the row holds one runtime."""
    if cell.case_key is None:
        return ('<td class="heat absent" data-view="across" data-verdict="absent">–</td>' if not cell.outcome else
                f'<td class="heat {cell.outcome}" data-view="across"><a href="#{href}"><span class="big outcome">'
                f"{escape(cell.outcome)}</span></a></td>")
    if not row.compares_runtimes or cell.vs_fastest is None:
        ratio_text, style, ratio = "one runtime here", "", ""
    else:
        heat = 0.0 if cell.fastest else -math.log2(max(cell.vs_fastest, 1.0))
        background, text = heat_colour(heat) if heat else ("#ffffff", "#1a1a1a")
        style = f' style="background:{background};color:{text}"'
        ratio_text = "fastest" if cell.vs_fastest <= 1.0 else ("tie" if cell.fastest else f"{cell.vs_fastest:.2f}×")
        ratio = f' data-ratio="{cell.vs_fastest:.4f}"'
    star = '<span class="star" title="fastest of the row, or not significantly slower">★</span> ' if cell.fastest else ""
    per_item = f" · {format_per_item(cell.per_item_ns)}/{escape(cell.item)}" if cell.per_item_ns else ""
    kernel = f'<span class="small kernel">{escape(cell.kernel)} kernel</span>' if cell.kernel else ""
    return (f'<td class="heat across" data-view="across" data-runtime="{escape(cell.runtime, quote=True)}"'
            f'{ratio}{style} title="{escape(cell.text(), quote=True)}"><a href="#{href}">'
            f'<span class="head">{star}<span class="model">{escape(cell.model)}</span> · '
            f'<span class="median">{format_duration(cell.median_ns)}</span>{per_item}</span>'
            f'<span class="big ratio">{escape(ratio_text)}</span>{kernel}</a></td>')


def across_table(record: RunRecord, runtimes: list[str], rows: list[Row]) -> str:
    head = "".join(f"<th>{escape(r)}</th>" for r in runtimes)
    body = []
    for row in rows:
        href = detail_anchor(record, row.anchor)
        note = (f'<span class="small own">one runtime\'s own size: {escape(row.own_sizes)}</span>'
                if row.own_sizes else "")
        body.append(f'<tr data-anchor="{href}" data-compares="{str(row.compares_runtimes).lower()}">'
                    f'<th class="row"><a href="#{href}">{escape(row.title)}</a>{note}</th>'
                    + "".join(across_cell(href, cell, row) for cell in row.cells) + "</tr>")
    return (f'<div class="scroll run-summary across"><h3>Run {record.id} · across runtimes · scale '
            f'{escape(record.scale)}</h3><table class="summary across" data-run="{record.id}">'
            f'<tr><th></th>{head}</tr>{"".join(body)}</table></div>')


def summary_section(runs: list[tuple[RunRecord, list]]) -> str:
    """Two views per run (runs differ in kind, scale and time, so their cells do not mix): across
    runtimes, each cell's ratio to its row's fastest runtime; and whether parallelism pays, each
    runtime's best model against its own seq."""
    tables, across = [], []
    for record, analyses in runs:
        runtimes, rows = summary(record)
        if rows and record.kind != "exec":      # exec's commands are compared in their own table
            tables.append(summary_table(record, runtimes, rows, drift_line(analyses)))
            across.append(across_table(record, runtimes, rows))
    if not tables:
        return ""
    return ('<section id="summary"><h2>Summary: does parallelism pay?</h2>'
            '<p class="meta">Each cell: the runtime\'s fastest model in that table, its median, and its speedup '
            "over the same runtime's <code>seq</code> (ratio of medians, 95% bootstrap CI). Colour: the log of "
            "that speedup, white at 1×; where seq itself is fastest, that of the next best model. Grey: no "
            "significant difference, or no seq to compare with. ★ the fastest case of the table. A cell opens its "
            "table.</p>" + heat_legend() + '<div class="summaries">' + "".join(tables) + "</div>"
            '<h2 id="across">Across runtimes: which runtime wins</h2><p class="meta">Each cell: the runtime\'s '
            "fastest model in the row, its median and cost per item, its kernel class, and its median's ratio to "
            "the row's fastest runtime. Only rows where two or more runtimes ran the same parameters compare "
            "runtimes; ★ marks the fastest and every runtime not significantly slower (ties). A row of one "
            "runtime's own size is marked so.</p>"
            '<div class="summaries across">' + "".join(across) + "</div></section>")


# --- the page -------------------------------------------------------------------------------
SWEEP_LABELS = {"scaling": "speedup vs workers", "crossover": "time vs input size",
                "per-task": "memory and time vs task count"}


def _workloads(records: list[RunRecord]) -> list[str]:
    present = {r.case.workload for rec in records for r in rec.results if r.case.workload != "noop"}
    return in_report_order(present)


def workload_section(workload: str, runs: list[tuple[RunRecord, list]]) -> str:
    out = [f'<section class="page workload" id="{_anchor(workload)}"><h2>{escape(workload)}</h2>']
    names_seen = set()
    for record, analyses in runs:
        for group in groups(record):
            if group.workload == workload:
                out.append(group_section(record, group, analyses))
        for name, subject, r in analyses:
            if not isinstance(r, PLOTTED) or r.workload != workload:
                continue
            names_seen.add(name)
            out.append(analysis_section(record, name, subject, r))
    sweeps = load_all_cached()[workload].sweeps if workload in load_all_cached() else {}
    missing = [(k, sweep) for k, sweep in sweeps.items() if k not in names_seen]
    if missing:
        out.append('<p class="missing">Not in these runs: ' + "; ".join(
            f"{SWEEP_LABELS.get(k, k)} — <code>parbench sweep {sweep} --workload {escape(workload)}</code>"
            for k, sweep in missing) + "</p>")
    failures = [row for record, _ in runs for row in failure_rows(record) if row[0].startswith(workload + "/")]
    if failures:
        out.append("<h3>Cases without a verified timing</h3>")
        out.append(_failure_table(failures))
    out.append("</section>")
    return "\n".join(out)


def _failure_table(rows: list[list[str]]) -> str:
    body = "".join(
        f'<tr class="{"limit" if row[1] == "limit" else "failed"}" data-outcome="{escape(row[1], quote=True)}">'
        + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in rows)
    head = "".join(f"<th>{h}</th>" for h in ("case", "outcome", "reason", "stderr (last line)"))
    return f'<div class="scroll"><table class="failures"><tr>{head}</tr>{body}</table></div>'


def _seed_table(rows: list) -> str:
    body = []
    for row in rows:
        ratio_cls = "worse" if "slower" in row.ratio else "better" if "faster" in row.ratio else ""
        body.append(f'<tr data-measured="{str(row.measured_ok).lower()}"><td>{escape(row.label)}</td>'
                    f"<td>{escape(row.published)}</td><td>{escape(row.measured)}</td>"
                    f'<td class="num {ratio_cls}">{escape(row.ratio)}</td><td>{escape(row.explanation)}</td>'
                    f"<td>{escape(row.source)}</td></tr>")
    head = "".join(f"<th>{h}</th>" for h in ("figure", "published", "this machine", "ratio", "why", "from"))
    return f'<div class="scroll"><table class="seeds"><tr>{head}</tr>{"".join(body)}</table></div>'


def _unmeasured_figures(rows: list) -> str:
    """The figures no run of the page measured, folded: each with the command that measures it."""
    body = "".join(f'<tr data-measured="false"><td>{escape(row.label)}</td><td>{escape(row.published)}</td>'
                   f"<td><code>{escape(row.command)}</code></td></tr>" for row in rows)
    return (f'<details class="unmeasured"><summary>{len(rows)} figure{"s" if len(rows) > 1 else ""} not measured '
            "yet: the commands that measure them</summary><div class=\"scroll\"><table class=\"seeds\"><tr>"
            f"<th>figure</th><th>published</th><th>run</th></tr>{body}</table></div></details>")


def seeds_section(records: list[RunRecord]) -> str:
    out = ['<section class="page" id="seeds"><h2>The seed articles beside this machine</h2>',
           '<p class="meta">Each article\'s published figures (docs/seeds.md) and the same workload measured '
           "here. Same scale: totals compared; another scale: per-item figures compared, and the row says so. "
           "Ratio: this machine against the article.</p>"]
    for seed, rows in seeds_module.compare_seeds(records):
        out.append(f'<div class="seed" id="seed-{seed.number}"><h3>{seed.number} — {escape(seed.title)}</h3>'
                   f'<p class="meta">Article: {escape(seed.system)}. Point: {escape(seed.point)}.</p>')
        shown = [row for row in rows if not row.command]
        if shown:
            out.append(_seed_table(shown))
        if len(shown) < len(rows):
            out.append(_unmeasured_figures([row for row in rows if row.command]))
        out.append("</div>")
    out.append("</section>")
    return "\n".join(out)


def startup_section(runs: list[tuple[RunRecord, list]]) -> str:
    out = []
    for record, analyses in runs:
        rows = startup_rows(record)
        if rows:
            out.append(f"<h3>Start-up: a whole process that does no work · run {record.id}</h3>")
            out.append(_table(STARTUP_COLUMNS, rows, "startup", set(STARTUP_COLUMNS[1:])))
        for title, header, rows, notes in analysis_tables([a for a in analyses if a[0] == "time-split"]):
            out.append(f"<h3>{escape(title)} · run {record.id}</h3>" + _table(header, rows, "time-split", set(header[1:]))
                       + _notes(notes))
    if not out:
        return ""
    return '<section class="page" id="startup"><h2>Start-up and where the time goes</h2>' + "".join(out) + "</section>"


def metadata_section(records: list[RunRecord]) -> str:
    out = ['<section class="page" id="machine"><h2>Machine, toolchains and flags</h2>']
    for record in records:
        m = record.machine
        out.append(f"<h3>Run {record.id}: {escape(record.kind)}, scale {escape(record.scale)}, "
                   f"{escape(record.status)}, {escape(record.started_at)} → {escape(str(record.finished_at))}</h3>")
        machine_rows = [[k, ", ".join(map(str, v)) if isinstance(v, list) else str(v)] for k, v in m.items()]
        out.append(_table(["machine", "value"], machine_rows, "machine"))
        if record.runtimes:
            out.append(_table(["runtime", "version", "flags", "sources"],
                              [[name, toolchain.version, toolchain.flags,
                                "; ".join(f"{k}: {v}" for k, v in (toolchain.sources or {}).items())]
                               for name, toolchain in runtimes_of(record)], "runtimes"))
        flags = {}
        for result in record.results:
            if result.run.flags:
                flags.setdefault(result.case.runtime, {}).update(result.run.flags)
        if flags:
            out.append(_table(["runtime", "flags reported by the implementations"],
                              [[k, ", ".join(f"{n}={v}" for n, v in sorted(f.items()))] for k, f in flags.items()],
                              "flags"))
        options = {k: v for k, v in record.options.items() if v not in (None, (), [], {}, "")}
        out.append(_notes(["options: " + ", ".join(f"{k}={v}" for k, v in options.items())]
                          + [f"scale override: {line}" for line in override_lines(record)]))
    out.append("</section>")
    return "\n".join(out)


def render_runs(runs: list[tuple[RunRecord, list]]) -> str:
    """The whole page for one or more stored runs, each with its analyses. A page of exec runs
    only is about what they measured: no seed articles and no workloads they never ran."""
    records = [record for record, _ in runs]
    workloads = _workloads(records)
    of_commands = bool(records) and all(r.kind == "exec" for r in records)
    first = machine_of(records[-1]) if records else Machine()
    answer = summary_section(runs)
    nav = '<a href="#summary">summary</a>' if answer else ""
    nav += ("" if of_commands else '<a href="#seeds">seeds</a>') + \
        "".join(f'<a href="#{_anchor(w)}">{escape(w)}</a>' for w in workloads)
    nav += '<a href="#startup">start-up</a><a href="#machine">machine</a>'
    run_list = "".join(f"<li>run {r.id}: {escape(r.kind)}, scale {escape(r.scale)}, {escape(r.status)}, "
                       f"{escape(r.started_at)}, {len([c for c in r.results if c.case.workload != 'noop'])} cases</li>"
                       for r in records)
    body = [f"<h1>parbench report</h1><p class=meta>{escape(str(first.cpu))} · "
            f"{first.logical_cpus} logical CPUs · {escape(str(first.os))} · parbench "
            f"{escape(str(first.parbench))} @ {escape(str(first.git_commit))}</p>",
            f"<nav>{nav}</nav><ul class=meta>{run_list}</ul>", answer, "" if of_commands else seeds_section(records)]
    body += [workload_section(w, runs) for w in workloads]
    body += [advise_panel.section(records), startup_section(runs), metadata_section(records)]
    title = "parbench report — runs " + ", ".join(str(r.id) for r in records)
    return (f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)}</title><style>{CSS}</style></head>\n<body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def render(reports: list[Report]) -> str:
    return render_runs([(r.record, r.analyses) for r in reports])


EXPORTER = Exporter("html", "html", "one self-contained HTML page with plots", render)
