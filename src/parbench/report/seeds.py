"""The five seed articles' published figures (docs/seeds.md) beside this machine's, as plain rows.

Each published figure names the runtime, model and params that reproduce it. A stored case
with those params gives a like-for-like total; a case at another scale is compared per item
(per key, per MB, per document, per process, per coroutine) and the row says so. A figure
with no stored case gets the exact `parbench` command that measures it — never a number.
"""
from __future__ import annotations

from dataclasses import dataclass

from parbench.project import IMPLS_DIR
from parbench.records import CaseResult, RunRecord
from parbench.units import format_bytes, format_duration
from parbench.workloads import in_report_order, load_all_cached
from parbench.workloads.seeds import MB, Figure, Seed


def all_seeds() -> list[Seed]:
    """Every workload's seed article, in the reports' order of workloads."""
    workloads = load_all_cached()
    return [workloads[name].seed for name in in_report_order(workloads) if workloads[name].seed is not None]


@dataclass
class SeedRow:
    """One published figure and what this machine measured for it, as display strings."""
    label: str
    published: str
    measured: str
    ratio: str
    explanation: str
    source: str          # which stored case gave the figure, or why there is none
    measured_ok: bool
    command: str = ""    # for a figure not measured yet: the command that measures it


def command_for(seed: Seed, figure: Figure) -> str:
    params = {figure.scale_param: figure.scale_value, **figure.match, **figure.command_params}
    shown = " ".join(f"--param {k}={v}" for k, v in params.items() if v is not None)
    return f"parbench run --workload {seed.workload} --runtime {figure.runtime} --model {figure.model} {shown}"


def _not_measured(seed: Seed, figure: Figure, published: str) -> SeedRow:
    missing = not (IMPLS_DIR / figure.runtime / "runtime.toml").exists()
    source = (f"no {figure.runtime} runtime in impls/ yet; once there, run:" if missing
              else "not in the runs of this report; run:")
    return SeedRow(figure.label, published, "not measured yet", "–", "", source, False,
                   command_for(seed, figure))


def _candidates(records: list[RunRecord], seed: Seed, figure: Figure) -> list[tuple[RunRecord, CaseResult]]:
    found = []
    for record in records:
        for result in record.results:
            c = result.case
            if (c.workload, c.runtime, c.model) != (seed.workload, figure.runtime, figure.model):
                continue
            if any(str(c.params.get(k)) != str(v) for k, v in figure.match.items()):
                continue
            if (figure.scale_value == "seed-article") != (c.params.get(figure.scale_param) == "seed-article"):
                continue
            found.append((record, result))
    return found


def _items_of(result: CaseResult, figure: Figure) -> float:
    value = result.case.params.get(figure.scale_param)
    if figure.scale_value == "seed-article":
        return 1.0
    return float(value) / MB if figure.item == "MB" else float(value) * figure.items_per_unit


def _format(value: float, quantity: str) -> str:
    return format_bytes(value) if quantity == "memory" else format_duration(value)


def _ratio_text(ratio: float) -> str:
    return f"{ratio:.2f}x slower here" if ratio >= 1 else f"{1 / ratio:.2f}x faster here"


def _limit_row(seed: Seed, figure: Figure, found) -> SeedRow:
    at_or_above = [(rec, r) for rec, r in found
                   if isinstance(r.case.params.get(figure.scale_param), int)
                   and r.case.params[figure.scale_param] >= figure.scale_value]
    if not at_or_above:
        return _not_measured(seed, figure, figure.limit_text)
    record, result = min(at_or_above, key=lambda p: p[1].case.params[figure.scale_param])
    n = result.case.params[figure.scale_param]
    if result.run.status == "ok":
        measured = f"ran at {figure.scale_param}={n:,}: {format_duration(result.stats.median_ns)}"
        why = "no limit here at that count (runtime flags raise it; see the runtime's flags)"
    else:
        measured = f"{result.run.status} at {figure.scale_param}={n:,}: {result.run.reason}"
        why = "the same kind of limit on this machine"
    return SeedRow(figure.label, figure.limit_text, measured, "–", why,
                   f"run {record.id}, {result.case.key}", result.run.status == "ok")


def compare_figure(seed: Seed, figure: Figure, records: list[RunRecord], cores: int) -> SeedRow:
    found = _candidates(records, seed, figure)
    if figure.quantity == "limit":
        return _limit_row(seed, figure, found)
    published = _format(figure.published, figure.quantity)
    per_published = figure.published / figure.per_item
    measured = [(rec, r) for rec, r in found if r.stats is not None
                and (figure.quantity != "memory" or r.stats.peak_rss_kb)]
    if not measured:
        failed = next(((rec, r) for rec, r in found if r.run.status != "ok"), None)
        if failed:
            record, result = failed
            return SeedRow(figure.label, published, f"{result.run.status}: {result.run.reason}", "–",
                           "no timing on this machine: the case did not finish as verified",
                           f"run {record.id}, {result.case.key}", False)
        return _not_measured(seed, figure, published)
    # Same scale first; otherwise the largest run, whose per-item cost is least start-up bound.
    same = [(rec, r) for rec, r in measured if str(r.case.params.get(figure.scale_param)) == str(figure.scale_value)]
    record, result = (same or sorted(measured, key=lambda p: _items_of(p[1], figure)))[-1]
    value = 1024.0 * result.stats.peak_rss_kb if figure.quantity == "memory" else result.stats.median_ns
    items = _items_of(result, figure)
    source = f"run {record.id} ({record.scale}), {result.case.key}"
    if same:
        ratio = value / figure.published
        shown = _format(value, figure.quantity)
        scale_note = "same scale"
    else:
        ratio = (value / items) / per_published
        shown = (f"{_format(value / items, figure.quantity)} per {figure.item} "
                 f"({_format(value, figure.quantity)} for {result.case.params.get(figure.scale_param):,})")
        published = f"{published} ({_format(per_published, figure.quantity)} per {figure.item})"
        scale_note = f"other scale: compared per {figure.item}"
        if items * figure.items_per_unit < figure.per_item / 10:
            scale_note += (f" at {result.case.params.get(figure.scale_param):,}, where fixed start-up costs "
                           "weigh far more per item than at the article's scale")
    return SeedRow(figure.label, published, shown, _ratio_text(ratio),
                   f"{scale_note}; {_explain(seed, figure, ratio, cores)}", source, True)


def _explain(seed: Seed, figure: Figure, ratio: float, cores: int) -> str:
    """One line on why the figures differ, from what is known about both machines."""
    parallel = figure.model not in ("seq",)
    if figure.quantity == "memory":
        return ("both divide the whole process's peak RSS by the task count, so the interpreter's "
                "baseline is included; the per-task slope of a task sweep removes it")
    if seed.note:
        return f"{seed.note} (article: {seed.system})"
    if figure.scale_value == "seed-article":
        return ("the tiny input measures start-up of the parallel machinery, not throughput"
                if parallel else "a few bytes: timer resolution and cache state dominate")
    if parallel and cores < seed.cores:
        return (f"{cores} logical CPUs here against {seed.cores} there: parallel speedup is bounded "
                f"by {cores}x here")
    if ratio >= 1:
        return f"one core of this CPU is slower at this work than the article's ({seed.system})"
    return f"one core of this CPU is faster at this work than the article's ({seed.system})"


def compare_seeds(records: list[RunRecord]) -> list[tuple[Seed, list[SeedRow]]]:
    cores = next((r.machine.get("logical_cpus") for r in records if r.machine.get("logical_cpus")), 1)
    return [(seed, [compare_figure(seed, figure, records, cores) for figure in seed.figures])
            for seed in all_seeds()]
