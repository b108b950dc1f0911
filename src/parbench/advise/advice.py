"""An advice: the question, one ranking per kernel class and parameter set, the evidence each
prediction stands on and the sweeps that would measure what is missing. It ranks by the figure
the question answers (steady-state or first-run) and shows the other beside each candidate."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from parbench.advise import measure
from parbench.advise.evidence import Evidence, Series, gather
from parbench.advise.predict import Band, Prediction, Unpredictable, predict
from parbench.advise.question import FIRST_RUN, STEADY_STATE, Question
from parbench.advise.ranking import Entry, rank
from parbench.records import RunRecord
from parbench.workloads import Workload


@dataclass
class Ranking:
    """The candidates that may be compared: one kernel class, one set of the other params."""
    context: dict[str, Any]
    entries: list[Entry]
    unpredictable: list[Unpredictable]
    # The other figure's prediction for each entry, by the prediction's name (steady-state when
    # the ranking answers first-run, and the reverse); absent where the store has none of it.
    other: dict[str, Band] = field(default_factory=dict)


@dataclass
class Advice:
    question: Question
    machine: dict[str, Any]
    cpus: int
    rankings: list[Ranking]
    run_ids: list[int]
    missing: list[measure.Missing] = field(default_factory=list)
    note: str = ""


def _seq_of(series: Series, every: list[Series]) -> Series | None:
    return next((s for s in every if s.runtime == series.runtime and s.family == "seq"
                 and s.context == series.context), None)


def other_figure(question: Question) -> str:
    return STEADY_STATE if question.answers == FIRST_RUN else FIRST_RUN


def _without_figure(series: Series, question: Question) -> Unpredictable:
    return Unpredictable(series.runtime, series.model, series.family, dict(series.context),
                         f"no {question.answers} figures stored for its {series.without_figure} case(s) "
                         "(runs from before protocol 4): not ranked by another figure instead")


def lacks_figure(unpredictable: Unpredictable, question: Question) -> bool:
    """Left out for want of the figure asked, not of a worker sweep: no sweep is proposed for it."""
    return unpredictable.reason.startswith(f"no {question.answers} figures")


def rankings_of(evidence: Evidence, question: Question, cpus: int) -> list[Ranking]:
    by_context: dict[tuple, list[Prediction | Unpredictable]] = {}
    for series in evidence.series:
        by_context.setdefault(series.context, []).append(
            predict(series, _seq_of(series, evidence.series), question.value, question.cores, cpus)
            if series.points else _without_figure(series, question))
    return [Ranking(dict(context),
                    rank([p for p in found if isinstance(p, Prediction)], question.by_memory),
                    [p for p in found if isinstance(p, Unpredictable)])
            for context, found in sorted(by_context.items(), key=lambda item: str(item[0]))]


def lacking_note(evidence: Evidence, question: Question) -> str:
    """Which candidates were predicted from fewer cases than were measured, for want of the figure."""
    partial = [f"{s.name} ({s.without_figure})" for s in evidence.series if s.points and s.without_figure]
    return (f"cases without {question.answers} figures (runs from before protocol 4) left out of: "
            + ", ".join(partial)) if partial else ""


def _attach_other(rankings: list[Ranking], records: list[RunRecord], question: Question, cpus: int) -> None:
    """Each entry's prediction of the other figure, from the same runs, where they hold it."""
    other = rankings_of(gather(records, question, other_figure(question)), question, cpus)
    found = {(str(sorted(r.context.items())), e.prediction.name): e.prediction.time for r in other for e in r.entries}
    for ranking in rankings:
        for entry in ranking.entries:
            band = found.get((str(sorted(ranking.context.items())), entry.prediction.name))
            if band is not None:
                ranking.other[entry.prediction.name] = band


def advise(records: list[RunRecord], question: Question, workload: Workload, cpus: int) -> Advice:
    """The advice from these stored runs; `cpus`: the logical CPUs of the machine they were
    measured on (where the evidence does not say)."""
    evidence = gather(records, question)
    cpus = int(evidence.machine.get("logical_cpus") or cpus)
    rankings = rankings_of(evidence, question, cpus)
    if not question.by_memory:
        _attach_other(rankings, records, question, cpus)
    note = "; ".join(n for n in (evidence.note, lacking_note(evidence, question)) if n)
    advice = Advice(question, evidence.machine, cpus, rankings, evidence.run_ids, note=note)
    advice.missing = measure.missing_sweeps(question, [e.prediction for r in rankings for e in r.entries],
                                            [u for r in rankings for u in r.unpredictable
                                             if not lacks_figure(u, question)], cpus, workload)
    return advice
