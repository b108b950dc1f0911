"""advise/ranking.py: best first, margins with their widest ratio, shared ranks where intervals
overlap (no winner the data do not support), and no chain of neighbours."""
import pytest

from parbench.advise.predict import Band, Prediction
from parbench.advise.ranking import rank


def candidate(name, median, low, high):
    return Prediction("rt", name, "threads", {}, None, Band(median, low, high), "measured", False, [1.0], None,
                      "", None, "")


def test_the_fastest_first_with_its_margin_to_the_next():
    entries = rank([candidate("slow", 30, 28, 32), candidate("fast", 10, 9, 11)])
    assert [e.prediction.model for e in entries] == ["fast", "slow"] and [e.rank for e in entries] == [1, 2]
    margin = entries[0].margin
    assert margin.significant and margin.ratio == pytest.approx(3)
    assert (margin.low, margin.high) == (pytest.approx(28 / 11), pytest.approx(32 / 9))
    assert entries[1].margin is None


def test_overlapping_intervals_share_a_rank_and_are_no_significant_difference():
    entries = rank([candidate("a", 10, 8, 12), candidate("b", 11, 9, 13)])
    assert [e.rank for e in entries] == [1, 1] and not entries[0].margin.significant


def test_a_chain_of_overlaps_does_not_tie_the_ends():
    entries = rank([candidate("a", 10, 9, 11), candidate("b", 12, 10.5, 13.5), candidate("c", 14, 12, 16)])
    assert [e.rank for e in entries] == [1, 1, 3]
    assert not entries[1].margin.significant          # b ~ c, yet c is not tied with a


def test_ranking_by_memory_uses_the_memory_band_and_leaves_out_candidates_without_one():
    light = candidate("light", 50, 49, 51)
    light.memory = Band(1e6, 0.9e6, 1.1e6)
    heavy = candidate("heavy", 10, 9, 11)
    heavy.memory = Band(5e6, 4.9e6, 5.1e6)
    unknown = candidate("unknown", 1, 1, 1)
    assert [e.prediction.model for e in rank([heavy, light, unknown], by_memory=True)] == ["light", "heavy"]
