"""The predictions of one kernel class and parameter set, ranked by time (or peak memory), each
with its margin to the next; where two intervals overlap they share a rank and the advice says
"no significant difference": it never picks a winner the data do not support."""
from __future__ import annotations

from dataclasses import dataclass

from parbench.advise.predict import Band, Prediction


@dataclass(frozen=True)
class Margin:
    """How many times the next candidate's value is this one's, with the widest ratio both
    intervals allow; `significant` only where the intervals do not overlap."""
    ratio: float
    low: float
    high: float
    significant: bool


@dataclass
class Entry:
    rank: int
    prediction: Prediction
    margin: Margin | None              # to the next entry; None for the last


def measure_of(prediction: Prediction, by_memory: bool) -> Band | None:
    return prediction.memory if by_memory else prediction.time


def margin(ahead: Band, behind: Band) -> Margin:
    overlap = behind.low <= ahead.high
    return Margin(behind.median / ahead.median, behind.low / ahead.high, behind.high / ahead.low, not overlap)


def rank(predictions: list[Prediction], by_memory: bool = False) -> list[Entry]:
    """Best first. A candidate whose interval overlaps that of the first of the rank above it
    shares that rank (not a chain of neighbours: A ~ B ~ C does not make A ~ C)."""
    ranked = sorted((p for p in predictions if measure_of(p, by_memory) is not None),
                    key=lambda p: (measure_of(p, by_memory).median, p.name))
    entries: list[Entry] = []
    leader: Band | None = None
    for i, prediction in enumerate(ranked):
        this = measure_of(prediction, by_memory)
        following = ranked[i + 1] if i + 1 < len(ranked) else None
        gap = margin(this, measure_of(following, by_memory)) if following else None
        if leader is not None and this.low <= leader.high:
            entries.append(Entry(entries[-1].rank, prediction, gap))
        else:
            leader = this
            entries.append(Entry(i + 1, prediction, gap))
    return entries
