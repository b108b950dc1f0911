"""units.py: durations, costs per item, rates and sizes in human units, the same in every format."""
import pytest

from parbench.units import format_bytes, format_duration, format_per_item, format_rate


@pytest.mark.parametrize("ns, shown", [
    (0, "0 ns"), (999, "999 ns"), (1000, "1 µs"), (1500, "1.5 µs"), (12_345_678, "12.3 ms"),
    (2.5e9, "2.5 s"), (99.94e6, "99.9 ms"), (150e6, "150 ms"), (1234e9, "1234 s")])
def test_a_duration_takes_the_largest_unit_it_reaches_with_three_significant_figures(ns, shown):
    assert format_duration(ns) == shown


def test_a_duration_of_a_hundred_units_or_more_is_shown_whole_not_in_powers_of_ten():
    assert format_duration(123_456e6) == "123 s" and "e+" not in format_duration(5e12)


def test_a_negative_duration_keeps_its_sign_and_its_unit():
    assert format_duration(-2_000_000) == "-2 ms"


def test_a_cost_per_item_under_ten_nanoseconds_keeps_its_fraction():
    assert format_per_item(0.123) == "0.12 ns" and format_per_item(7.9) == "7.9 ns"


def test_a_cost_per_item_of_ten_nanoseconds_or_more_is_a_duration():
    assert format_per_item(10) == "10 ns" and format_per_item(2500) == "2.5 µs"


@pytest.mark.parametrize("rate, shown", [(0.5, "0.5"), (999, "999"), (1000, "1 K"), (2.5e6, "2.5 M"),
                                         (3.21e9, "3.21 G")])
def test_a_rate_takes_the_largest_metric_prefix_it_reaches(rate, shown):
    assert format_rate(rate) == shown


@pytest.mark.parametrize("count, shown", [(0, "0 B"), (1023, "1023 B"), (1024, "1 KiB"), (1536, "1.5 KiB"),
                                          (5 << 20, "5 MiB"), (3 << 30, "3 GiB"), (-2048, "-2 KiB")])
def test_a_size_takes_the_largest_binary_unit_it_reaches(count, shown):
    assert format_bytes(count) == shown
