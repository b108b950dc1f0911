"""The stored analyses (sweeps, Amdahl from CPU and I/O shares, start-up split) as plain text tables."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

from parbench.analysis.amdahl_shares import AmdahlShares
from parbench.analysis.command_sweeps import Unfitted
from parbench.analysis.crossover import CrossoverModes, CrossoverResult, ModeRow
from parbench.analysis.drift import Drift
from parbench.analysis.per_task import PerTaskResult
from parbench.analysis.results import TimeSplits
from parbench.analysis.scaling import ScalingResult
from parbench.records import Analysis, table_title
from parbench.units import format_bytes, format_duration


def _size(value, param: str, of_commands: bool = False) -> str:
    """A workload's size is bytes; a user's command's {size} is whatever its command line makes of it."""
    return format_bytes(value) if param == "size" and not of_commands else f"{value:,.0f}"


Table = tuple[str, list[str], list[list[str]], list[str]]      # title, header, rows, notes


def _scaling(subject: str, r: ScalingResult) -> Table:
    header = ["workers", "speedup"] + (["95% CI"] if r.speedup_ci else []) + ["efficiency"] + \
        (["vs seq"] if r.speedup_vs_seq else [])
    rows = []
    for i, p in enumerate(r.workers):
        row = [str(p), f"{r.speedup[i]:.2f}x"] + ([f"{r.speedup_ci[i][0]:.2f} – {r.speedup_ci[i][1]:.2f}x"]
                                                  if r.speedup_ci else []) + [f"{100 * r.efficiency[i]:.0f}%"]
        if r.speedup_vs_seq:
            row.append(f"{r.speedup_vs_seq[i]:.2f}x")
        rows.append(row)
    notes = [f"speedup against {r.baseline}; measured on {r.cores} logical CPUs"]
    if r.amdahl:
        ci = r.amdahl.ci["f"]
        notes.append(f"Amdahl: serial fraction f = {r.amdahl.params['f']:.3f}"
                     + (f" (95% CI {ci[0]:.3f} – {ci[1]:.3f}{_from_runs(r.amdahl)})" if ci
                        else " (no CI: too few points)"))
    if r.usl:
        cis = r.usl.ci
        fmt = lambda n: (f" (95% CI {cis[n][0]:.3g} – {cis[n][1]:.3g})" if cis.get(n) else "")
        notes.append(f"USL: σ = {r.usl.params['sigma']:.3g}{fmt('sigma')}, κ = {r.usl.params['kappa']:.3g}{fmt('kappa')}")
    if r.peak_workers:
        notes.append(f"USL peak (prediction): {r.peak_speedup:.2f}x at {r.peak_workers:.1f} workers")
    for n, laws in r.predictions.items():
        if laws:
            notes.append(f"prediction at {n} workers: " + ", ".join(f"{law} {v:.2f}x" for law, v in laws.items()))
    if r.note:
        notes.append(r.note)
    return f"Scaling: {subject}", header, rows, notes


def _from_runs(fit) -> str:
    return ", from resampled runs: two worker counts leave the fit none of its own" \
        if fit.ci_from == "resampled runs" else ""


def _crossover(subject: str, r: CrossoverResult) -> Table:
    # A user's commands (exec --fit size): the first command line stands where seq stands.
    names = ("first command", "this command") if r.workload == "exec" else ("seq", "parallel")
    header = [r.param, f"{names[0]} median", f"{names[1]} median", f"{names[1]} / {names[0]}", "95% CI"]
    size = lambda value: _size(value, r.param, r.workload == "exec")
    rows = [[size(s), format_duration(a), format_duration(b), f"{q:.3f}", f"{lo:.3f} – {hi:.3f}"]
            for s, a, b, q, (lo, hi) in zip(r.sizes, r.seq_median_ns, r.parallel_median_ns, r.ratio, r.ratio_ci)]
    notes = [r.verdict]
    if r.crossover:
        ci = r.crossover_ci
        notes.append(f"crossover {r.param} ≈ {size(r.crossover)}" + (f" (95% CI {size(ci[0])} – {size(ci[1])})" if ci else ""))
    return f"Crossover: {subject}", header, rows, notes


def _crossover_modes(subject: str, r: CrossoverModes) -> Table:
    """Each model's crossover cold and warm side by side, and what warm takes off each repetition."""
    modes = [m for m in ("cold", "warm") if any(m in row.crossover for row in r.rows)]
    header = ["model"] + [f"{mode} crossover (95% CI)" for mode in modes] + ["cold − warm per repetition"]

    def crossing(row: ModeRow, mode: str) -> str:
        if mode not in row.crossover:
            return "not offered"
        size, ci = row.crossover[mode], row.crossover_ci.get(mode)
        if size is None:
            return "never"
        return _size(size, r.param) + (f" ({_size(ci[0], r.param)} – {_size(ci[1], r.param)})" if ci else "")

    rows = [[f"{row.runtime} {row.model}"] + [crossing(row, mode) for mode in modes]
            + [f"{format_duration(row.fixed_cost_ns)} at {_size(row.at_size, r.param)}"
               if row.fixed_cost_ns is not None else "–"] for row in r.rows]
    notes = ["cold: the workers are made and ended inside every timed repetition (what a one-shot command pays); "
             "warm: made once per process before the first repetition (a server's pool); "
             "the last column is the cold median less the warm one at the smallest size, where the work is next to nothing"]
    return f"Crossover by start mode: {subject}", header, rows, notes


UNIT_FLOOR_BYTES = 16     # a unit of any kind (a future, a coroutine, a process) costs more than this


def weightless_units(r: PerTaskResult) -> bool:
    """A model that says it makes a unit per link or task whose peak memory does not grow with
    them: the evidence a green chain or swarm leaves that the launcher measures itself."""
    b = r.bytes_per_unit
    if r.family in ("", "seq") or b is None or len(r.counts) < 3:
        return False
    high = b.per_unit_ci[1] if b.per_unit_ci else b.per_unit
    return high < UNIT_FLOOR_BYTES


def _per_task(subject: str, r: PerTaskResult) -> Table:
    header = [r.param, "median", "peak RSS (tree)"]
    rows = [[f"{n:,}", format_duration(t), format_bytes(m)]
            for n, t, m in zip(r.counts, r.median_ns, r.peak_rss_bytes)]
    notes = []
    if r.time_per_unit_ns:
        t = r.time_per_unit_ns
        ci = (f", 95% CI {format_duration(t.per_unit_ci[0])} – {format_duration(t.per_unit_ci[1])}"
              if t.per_unit_ci else "")
        notes.append(f"time per unit: {format_duration(t.per_unit)} (slope{ci}, R² {t.r_squared:.3f})")
    if r.bytes_per_unit:
        b = r.bytes_per_unit
        ci = f", 95% CI {format_bytes(b.per_unit_ci[0])} – {format_bytes(b.per_unit_ci[1])}" if b.per_unit_ci else ""
        notes.append(f"bytes per unit: {format_bytes(b.per_unit)} (slope{ci}, R² {b.r_squared:.3f}); "
                     f"baseline {format_bytes(b.intercept)}")
    if weightless_units(r):
        notes.append(f"⚠ its memory does not grow with its {r.param} (under {UNIT_FLOOR_BYTES} B per unit, the "
                     "slope's 95% CI included): units that were never made? The cheapest real ones (a C++ "
                     "coroutine) cost over 100 B")
    if r.largest_ok:
        notes.append(f"largest {r.param} that ran: {r.largest_ok:,}")
    if r.failure:
        f = r.failure
        notes.append(f"{r.param} = {f['n']:,} failed: {f['outcome']}: {f['detail']}")
    return f"Per task: {subject}", header, rows, notes


def _amdahl_shares(subject: str, r: AmdahlShares) -> Table:
    header = ["case", "CPU workers", "Amdahl predicts", "achieved", "achieved / predicted"]
    rows = [[row.case, str(row.workers), f"{row.predicted_speedup:.2f}x",
             f"{row.achieved_speedup:.2f}x", f"{100 * row.efficiency_vs_prediction:.0f}%"]
            for row in r.rows]
    notes = [f"seq spends {100 * r.cpu_share:.0f}% on CPU work and {100 * r.io_share:.0f}% "
             "on I/O (its extra.cpu_ns and io_ns); prediction: S = 1 / (io + cpu / W), only the CPU part parallel"]
    return f"Amdahl's law from CPU and I/O shares: {subject}", header, rows, notes


def _time_split(subject: str, r: TimeSplits) -> Table:
    header = ["case", "process wall", "start-up", "input load", "work (warm-ups too)", "the rest"]
    fmt = lambda v: format_duration(v) if v is not None else "–"
    rows = [[row.case, fmt(row.process_wall_ns), fmt(row.boot_ns), fmt(row.load_ns),
             fmt(row.work_ns), fmt(row.rest_ns)] for row in r.rows]
    return ("Where each process's time goes", header, rows,
            ["each part measured in the process itself, the median over its processes (start-up: until its "
             "first line's work began, by the launcher's stamp); the rest: JIT, pool start-up, teardown and GC "
             "at exit — whatever start-up, load and work leave"])


def _drift(subject: str, r: Drift) -> Table:
    """The sitting's drift line and the tables measured while the machine was off."""
    title = (f"Machine drift over this sitting: {100 * r.spread:.1f}% "
             f"(sentinel: CPU loop {100 * r.cpu_spread:.1f}%, memory loop {100 * r.memory_spread:.1f}%, "
             f"{r.readings} readings; steal up to {100 * r.steal_max:.1f}%, machine busy up to "
             f"{100 * r.busy_max:.0f}%)")
    rows = [[table_title(table), f"{100 * off:.1f}%"] for table, off in r.off_tables.items()]
    notes = ([f"{len(rows)} table(s) measured while a sentinel reading beside them was off by more than 5%: "
              "their figures are from a changed machine"] if rows else ["no table measured while the machine was off by more than 5%"])
    return title, ["table measured while the machine was off", "sentinel off by"], rows, notes


def _unfitted(subject: str, r: Unfitted) -> Table:
    """A stored run whose swept values its axis cannot take: its reason in place of a fit."""
    return f"No fit: {subject}", ["why"], [[r.reason]], []


@dataclass(frozen=True)
class View:
    """How every report shows one kind of analysis: its typed result (analysis/results.py), its
    table, and whether the console shows it."""
    result_type: type
    table: Callable[[str, Any], Table]
    on_console: bool = True


# The one registry of analysis kinds: the console, Markdown and HTML reports all read it.
VIEWS: dict[str, View] = {
    "drift": View(Drift, _drift),
    "scaling": View(ScalingResult, _scaling), "crossover": View(CrossoverResult, _crossover),
    "crossover-modes": View(CrossoverModes, _crossover_modes),
    "per-task": View(PerTaskResult, _per_task), "amdahl-shares": View(AmdahlShares, _amdahl_shares),
    "time-split": View(TimeSplits, _time_split, on_console=False),
    "unfitted": View(Unfitted, _unfitted),
}


def tables(analyses: list[Analysis], console: bool = False) -> list[Table]:
    """(title, header, rows, notes) for every typed analysis of a registered kind, in stored order."""
    return [VIEWS[name].table(subject, result) for name, subject, result in analyses
            if name in VIEWS and isinstance(result, VIEWS[name].result_type) and (VIEWS[name].on_console or not console)]
