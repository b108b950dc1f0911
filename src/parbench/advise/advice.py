"""An advice: the question, one ranking per kernel class and parameter set, the evidence each
prediction stands on and the sweeps that would measure what is missing."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from parbench.advise import measure
from parbench.advise.evidence import Evidence, Series, gather
from parbench.advise.predict import Prediction, Unpredictable, predict
from parbench.advise.question import Question
from parbench.advise.ranking import Entry, rank
from parbench.records import RunRecord
from parbench.workloads import Workload


@dataclass
class Ranking:
    """The candidates that may be compared: one kernel class, one set of the other params."""
    context: dict[str, Any]
    entries: list[Entry]
    unpredictable: list[Unpredictable]


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


def rankings_of(evidence: Evidence, question: Question, cpus: int) -> list[Ranking]:
    by_context: dict[tuple, list[Prediction | Unpredictable]] = {}
    for series in evidence.series:
        by_context.setdefault(series.context, []).append(
            predict(series, _seq_of(series, evidence.series), question.value, question.cores, cpus))
    return [Ranking(dict(context),
                    rank([p for p in found if isinstance(p, Prediction)], question.by_memory),
                    [p for p in found if isinstance(p, Unpredictable)])
            for context, found in sorted(by_context.items(), key=lambda item: str(item[0]))]


def advise(records: list[RunRecord], question: Question, workload: Workload, cpus: int) -> Advice:
    """The advice from these stored runs; `cpus`: the logical CPUs of the machine they were
    measured on (where the evidence does not say)."""
    evidence = gather(records, question)
    cpus = int(evidence.machine.get("logical_cpus") or cpus)
    rankings = rankings_of(evidence, question, cpus)
    advice = Advice(question, evidence.machine, cpus, rankings, evidence.run_ids, note=evidence.note)
    advice.missing = measure.missing_sweeps(question, [e.prediction for r in rankings for e in r.entries],
                                            [u for r in rankings for u in r.unpredictable], cpus, workload)
    return advice
