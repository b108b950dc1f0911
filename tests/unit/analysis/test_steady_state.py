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


def test_a_budget_verdict_is_no_steady_state_whatever_the_last_window_shows():
    assert classify([20 * MS] * 5, 2, 0.10, "budget") == NONE
    assert classify([20 * MS] * 5, 2, 0.10, "steady") == FLAT


def test_a_case_shares_its_processes_class_or_is_inconsistent_with_the_counts():
    assert case_class([WARMUP, WARMUP]) == WARMUP
    assert case_class([WARMUP, FLAT, WARMUP]) == "inconsistent: 2 warm-up, 1 flat"
    assert case_class([]) == "" and case_class(["", ""]) == ""


def test_no_steady_state_a_slowdown_and_inconsistency_are_marked_flat_and_warm_up_are_not():
    assert is_marked(NONE) and is_marked(SLOWDOWN) and is_marked("inconsistent: 1 flat, 1 warm-up")
    assert not is_marked(FLAT) and not is_marked(WARMUP) and not is_marked("")
