"""analysis/per_task.py: time and memory per task as the slopes of straight lines."""
import pytest

from parbench.analysis.per_task import fit_line, per_task_costs


def test_a_straight_line_gives_its_slope_with_a_tight_interval():
    slope = fit_line([10, 20, 40, 80], [1000 + 5 * n for n in (10, 20, 40, 80)])
    assert slope.per_unit == pytest.approx(5) and slope.intercept == pytest.approx(1000)
    assert slope.per_unit_ci[0] == pytest.approx(5) and slope.r_squared == pytest.approx(1)


def test_one_count_is_no_line():
    assert fit_line([10], [100]) is None and fit_line([10, 10], [100, 120]) is None


def test_the_largest_count_that_ran_and_the_failure_beyond_it_are_kept():
    failure = {"n": 640, "outcome": "limit", "detail": "out of memory"}
    result = per_task_costs([10, 40, 160], [100, 400, 1600], [1e6, 4e6, 16e6], failure)
    assert result.largest_ok == 160 and result.failure == failure
    assert result.bytes_per_unit.per_unit == pytest.approx(1e5)
