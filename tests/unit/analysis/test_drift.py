"""analysis/drift.py: how far the machine moved under one sitting, from the sentinel's readings."""
import pytest

from parbench.analysis.drift import drift


def _reading(position: int, cpu_ns: float, after: str = "", memory_ns: float = 1000) -> dict:
    return {"position": position, "cpu_ns": cpu_ns, "memory_ns": memory_ns, "after": after,
            "steal_share": 0.0, "busy_share": 0.1}


def test_one_reading_is_no_drift():
    assert drift([_reading(0, 100)]) is None


def test_the_spread_is_the_range_over_the_median_and_a_table_beside_an_off_reading_is_named():
    found = drift([_reading(0, 100), _reading(1, 100, "table A"), _reading(2, 120, "table B")])
    assert found.cpu_spread == pytest.approx(0.2) and found.readings == 3
    assert set(found.off_tables) == {"table B"}


def test_readings_are_taken_in_their_order_whatever_order_they_are_stored_in():
    readings = [_reading(2, 120, "table B"), _reading(0, 100), _reading(1, 100, "table A")]
    assert set(drift(readings).off_tables) == {"table B"}
