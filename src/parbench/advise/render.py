"""The advice as console text: per ranking, each candidate's predicted median and interval, its
margin to the next (or "no significant difference"), then where it comes from; what could not
be predicted and the commands that would measure what is missing."""
from __future__ import annotations

from parbench.advise.advice import Advice, Ranking, other_figure
from parbench.advise.question import FIRST_RUN, Question
from parbench.advise.check import CheckRow
from parbench.advise.predict import Band, Prediction
from parbench.advise.ranking import Entry, Margin
from parbench.units import format_bytes, format_duration


def band_text(band: Band, by_memory: bool = False) -> str:
    show = format_bytes if by_memory else format_duration
    if band.low == band.high == band.median:
        return show(band.median)
    return f"{show(band.median)} [{show(band.low)} – {show(band.high)}]"


def margin_text(margin: Margin | None, behind: str) -> str:
    if margin is None:
        return ""
    if not margin.significant:
        return f"no significant difference from {behind}"
    return f"{margin.ratio:.2g}× [{margin.low:.2g}–{margin.high:.2g}] ahead of {behind}"


def _values(prediction: Prediction) -> str:
    values = prediction.measured_values
    shown = ", ".join(f"{v:,.0f}" for v in values[:4]) + (f" … {values[-1]:,.0f}" if len(values) > 4 else "")
    return f"{len(values)} measured value{'s' if len(values) != 1 else ''} ({shown})"


def source_text(prediction: Prediction) -> str:
    """Which fit, over what, measured or extrapolated, and from which runs."""
    parts = [f"{prediction.size_basis} from {_values(prediction)}"]
    if prediction.extrapolated:
        parts[0] = "EXTRAPOLATED: " + parts[0] + " (interval widened)"
    if prediction.measured_workers and prediction.worker_basis != "measured":
        parts.append(f"×{prediction.measured_workers} scaled to ×{prediction.workers} by {prediction.worker_basis}")
    elif prediction.measured_workers:
        parts.append(f"measured at ×{prediction.measured_workers}")
    if prediction.crossover:
        parts.append(prediction.crossover)
    if prediction.memory:
        parts.append(f"peak memory {band_text(prediction.memory, True)} ({prediction.memory_basis})")
    parts.append("runs " + ", ".join(map(str, prediction.run_ids)))
    return "; ".join(parts)


FIGURE_WORDS = {FIRST_RUN: "first run", "steady-state": "steady state"}


def ranked_by_text(q: Question) -> str:
    if q.by_memory:
        return "peak memory"
    if q.answers == FIRST_RUN:
        return "predicted first-run time (each process's first repetition: what a short-lived command pays)"
    return "predicted steady-state median time (what a long-running process pays once settled)"


def other_text(ranking: Ranking, entry: Entry, q: Question) -> str:
    """The figure not ranked by, beside the one that is; said where the store lacks it."""
    if q.by_memory:
        return ""
    band = ranking.other.get(entry.prediction.name)
    words = FIGURE_WORDS[other_figure(q)]
    return f"      {words}: " + (band_text(band) if band else "not stored for these runs")


def entry_lines(entry: Entry, following: Entry | None, by_memory: bool, other: str = "") -> list[str]:
    p = entry.prediction
    shown = p.memory if by_memory else p.time
    head = f"  {entry.rank:>2}. {p.name:<28} {band_text(shown, by_memory):<34}"
    return [head + margin_text(entry.margin, following.prediction.name if following else "")] + (
        [other] if other else []) + [f"      from: {source_text(p)}"]


def ranking_lines(ranking: Ranking, by_memory: bool, q: Question | None = None) -> list[str]:
    title = ", ".join(f"{k}={v}" for k, v in sorted(ranking.context.items())) or "(no other parameters)"
    lines = [f"{title}:"]
    for i, entry in enumerate(ranking.entries):
        lines += entry_lines(entry, ranking.entries[i + 1] if i + 1 < len(ranking.entries) else None, by_memory,
                             other_text(ranking, entry, q) if q else "")
    lines += [f"   –  {u.runtime} {u.model}: not predicted: {u.reason}" for u in ranking.unpredictable]
    return lines


def advice_lines(advice: Advice, items: str, db: str | None = None) -> list[str]:
    q = advice.question
    machine = advice.machine
    lines = [f"advise: {q.workload} at {q.param}={q.value:,} {items} on {q.cores} core{'s' if q.cores != 1 else ''}, "
             f"ranked by {ranked_by_text(q)} (95% intervals)",
             f"evidence: runs {', '.join(map(str, advice.run_ids)) or 'none'} of {machine.get('hostname', '?')} "
             f"({machine.get('cpu', '?')}, {advice.cpus} logical CPUs)"]
    if advice.note:
        lines.append(f"note: {advice.note}")
    if not advice.rankings:
        lines.append(f"no stored case of {q.workload} matches: nothing to predict from")
    for ranking in advice.rankings:
        lines += [""] + ranking_lines(ranking, q.by_memory, q)
    if advice.missing:
        lines += ["", "missing:"]
        for missing in advice.missing:
            lines += [f"  {missing.reason}:", f"    {missing.command(db)}"]
        lines.append("  (or run advise again with --measure to run these first)")
    return lines


def check_lines(rows: list[CheckRow]) -> list[str]:
    lines = ["", "check: predicted against measured at the asked value"]
    for row in rows:
        p = row.prediction
        if row.measured is None:
            lines.append(f"  {p.name:<28} predicted {band_text(p.time):<34} not measured: {row.note}")
            continue
        verdict = "inside the interval" if row.inside else "OUTSIDE the predicted interval"
        lines.append(f"  {p.name:<28} predicted {band_text(p.time):<34} measured {band_text(row.measured)}: {verdict}")
    return lines
