"""sentinel.py: readings of the drift sentinel (sentinel.c), numbered through a sitting, with the
share of the machine that was busy or stolen since the reading before."""
import pytest

from parbench.measure import sentinel


@pytest.fixture(scope="module")
def two_readings():
    watch = sentinel.Sentinel()
    return watch, watch.read(), watch.read("toy n=10")


def test_readings_are_numbered_through_the_sitting_and_name_the_table_before(two_readings):
    watch, first, second = two_readings
    assert (first.position, first.after) == (0, "") and (second.position, second.after) == (1, "toy n=10")
    assert watch.readings == [first, second]


def test_a_reading_times_both_loops_and_shares_of_the_machine(two_readings):
    _, first, second = two_readings
    for reading in (first, second):
        assert reading.cpu_ns > 0 and reading.memory_ns > 0
        assert 0 <= reading.steal_share <= 1 and 0 < reading.busy_share <= 1    # the sentinel itself was busy


def test_a_reading_is_stored_as_a_plain_dict(two_readings):
    second = two_readings[2]
    assert second.as_dict() == {"position": 1, "after": "toy n=10", "cpu_ns": second.cpu_ns,
                                "memory_ns": second.memory_ns, "steal_share": second.steal_share,
                                "busy_share": second.busy_share}


def test_the_machine_times_are_the_eight_first_counters_of_proc_stat():
    times = sentinel._cpu_times()
    assert len(times) == 8 and all(t >= 0 for t in times) and sum(times) > 0


def test_a_sentinel_that_prints_no_reading_takes_none_and_counts_none(tmp_path, monkeypatch):
    broken = tmp_path / "sentinel"
    broken.write_text("#!/bin/sh\necho garbage\n")
    broken.chmod(0o755)
    monkeypatch.setattr(sentinel, "binary", lambda: str(broken))
    watch = sentinel.Sentinel()
    assert watch.read() is None and watch.readings == []


def test_without_the_program_there_is_no_reading(monkeypatch):
    monkeypatch.setattr(sentinel, "binary", lambda: None)
    watch = sentinel.Sentinel()
    assert watch.read("t") is None and watch.readings == []
