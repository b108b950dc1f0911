"""steady_state.py: each process's class from its whole series, and a case's from its processes'."""
import pytest

from parbench.analysis import steady_state
from parbench.analysis.steady_state import FLAT, NONE, SLOWDOWN, WARMUP, case_class, classify, is_marked, settled

MS = 1_000_000


def test_the_window_is_the_timed_repetitions_and_the_one_before_at_least_three():
    assert [steady_state.window(t) for t in (1, 2, 3, 5)] == [3, 3, 4, 6]


def test_settled_means_every_value_within_the_tolerance_of_the_median():
    assert settled([100, 109, 91], 0.10)
    assert not settled([100, 111, 100], 0.10)


@pytest.mark.parametrize("series, expected", [
    ([20, 20, 20], FLAT),                                    # steady from the first repetition
    ([20, 21, 19, 20, 20], FLAT),                            # noise within the tolerance before the window
    ([60, 48, 38, 30, 24, 20, 20, 20], WARMUP),              # a JIT compiling: slower before
    ([10, 14, 20, 20, 20], SLOWDOWN),                        # faster before: the steady state is slower
    ([60, 10, 20, 20, 20], WARMUP),                          # one fast repetition among them is noise
    ([20, 12, 11, 20, 20, 20], SLOWDOWN),                    # before the window, as a whole, faster
    ([20, 25, 14, 20, 20, 20], FLAT),                        # noise either way around the steady median
    ([10, 30, 10, 30, 10, 30], NONE),                        # never settles
    ([20, 20], NONE),                                        # too few for the window
])
def test_each_process_is_classified_from_its_series(series, expected):
    assert classify([s * MS for s in series], 2, 0.10) == expected


def test_a_process_of_one_repetition_by_design_is_one_shot_and_unmarked():
    assert classify([50 * MS], 1, 0.10, "fixed") == steady_state.ONE_SHOT
    assert not is_marked(steady_state.ONE_SHOT)


def test_the_whole_series_decides_not_the_launchers_verdict():
    """Classified afterwards on the whole series (Barrett et al.), by the launcher's own rule; a
    budget verdict (the launcher ran out of variants or time) does not force the class."""
    assert classify([20 * MS] * 5, 2, 0.10, "budget") == FLAT
    assert classify([10 * MS, 30 * MS] * 5, 2, 0.10, "budget") == NONE
    assert classify([20 * MS] * 5, 2, 0.10, "steady") == FLAT


def test_one_outlier_is_an_outlier_not_a_new_state():
    """One garbage collection or preemption (45 ms among 20s) neither resets the window nor
    turns a flat process into anything else."""
    series = [s * MS for s in (20, 20, 45, 20, 20)]
    assert steady_state.stops(series, 2, 0.10)                       # the long window: one of five
    assert not steady_state.stops(series[:4], 2, 0.10)               # 3 or 4: none allowed
    assert classify(series, 2, 0.10) == FLAT


def test_outliers_allowed_grow_with_the_run():
    assert [steady_state.outliers_allowed(n) for n in (3, 4, 5, 8, 9, 13)] == [0, 0, 1, 1, 2, 3]


def test_a_steady_process_knows_its_level_and_spread():
    judged = steady_state.judge([s * MS for s in (60, 30, 20, 21, 19, 20)], 2, 0.10)
    assert (judged.cls, judged.level, judged.spread) == (WARMUP, 20 * MS, MS)


def test_a_case_of_steady_processes_at_one_level_is_unmarked_whatever_their_classes():
    assert case_class([WARMUP, WARMUP]) == WARMUP
    assert case_class([WARMUP, FLAT, WARMUP], [(20 * MS, MS), (21 * MS, MS), (20 * MS, 0)]) == \
        "steady: 2 warm-up, 1 flat"
    assert not is_marked("steady: 2 warm-up, 1 flat")
    assert case_class([SLOWDOWN, SLOWDOWN]) == SLOWDOWN and not is_marked(SLOWDOWN)
    assert case_class([]) == "" and case_class(["", ""]) == ""


def test_processes_steady_at_levels_apart_beyond_their_noise_are_inconsistent():
    levels = [(20 * MS, MS), (26 * MS, MS)]                          # 6 ms apart, 2 ms of spread
    assert case_class([FLAT, FLAT], levels) == "inconsistent: levels 30 % apart (2 flat)"
    assert case_class([FLAT, FLAT], [(20 * MS, 2 * MS), (23 * MS, 2 * MS)]) == FLAT   # within their spread
    assert case_class([FLAT, FLAT], [(20 * MS, 0), (21.5 * MS, 0)]) == FLAT            # within the tolerance
    assert is_marked("inconsistent: levels 30 % apart (2 flat)")


def test_a_process_that_never_settled_marks_its_case_and_says_how_many():
    assert case_class([NONE, NONE]) == NONE
    assert case_class([NONE, FLAT, WARMUP]) == "no steady state in 1 of 3"
    assert is_marked(NONE) and is_marked("no steady state in 1 of 3")
    assert not is_marked(FLAT) and not is_marked(WARMUP) and not is_marked("")


def test_a_summary_cell_says_in_words_what_the_class_is():
    assert steady_state.short_text("inconsistent: levels 30 % apart (2 flat)") == "levels differ"
    assert steady_state.short_text("no steady state in 1 of 3") == "not settled in 1 of 3"
    assert steady_state.short_text(NONE) == "not settled"
    assert steady_state.short_text("steady: 2 warm-up, 1 flat") == "steady"
