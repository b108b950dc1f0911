"""advise/predict.py on synthetic points whose right answer is known: a measured value, log-log
interpolation, a line per item beyond the range (widened), worker laws, cores beyond the machine."""
import math

import numpy as np

import pytest

from parbench.advise.evidence import Point, Series
from parbench.advise.predict import (NEW_SITTING, WIDEN_PER_DOUBLING, Prediction, Unpredictable, along_value,
                                     for_a_new_sitting, memory_at, predict, worker_law)
from parbench.analysis.scaling import amdahl


def point(value, ns, workers=None, spread=0.05, peak=None, run=1):
    return Point(float(value), workers, ns, ns * (1 - spread), ns * (1 + spread), peak, run, "suite")


def linear(value, start_ns=1e6, per_item_ns=1e3):
    return start_ns + per_item_ns * value


# A stored ±5 % CI as a new sitting's interval: √2 as wide in log space.
LOW, HIGH = 0.95 ** NEW_SITTING, 1.05 ** NEW_SITTING


def test_a_stored_ci_becomes_a_new_sittings_interval_root_two_as_wide_in_log_space():
    widened = for_a_new_sitting(point(1000, 4e6))
    assert widened.median_ns == 4e6
    assert math.log(widened.high_ns / 4e6) == pytest.approx(math.sqrt(2) * math.log(1.05))
    assert math.log(4e6 / widened.low_ns) == pytest.approx(math.sqrt(2) * math.log(1 / 0.95))


def test_a_measured_value_is_its_measurement():
    points = [point(1000, 5e6), point(4000, 9e6)]
    estimate = along_value(points, 4000)
    assert estimate.band.median == 9e6
    assert (estimate.band.low, estimate.band.high) == (pytest.approx(9e6 * LOW), pytest.approx(9e6 * HIGH))
    assert estimate.basis == "measured" and not estimate.extrapolated


def test_inside_the_range_a_power_law_is_interpolated_exactly():
    points = [point(1000, 1e6), point(4000, 16e6)]          # t ∝ value²
    estimate = along_value(points, 2000)
    assert estimate.basis == "interpolated" and not estimate.extrapolated
    assert estimate.band.median == pytest.approx(4e6)
    assert estimate.band.low == pytest.approx(4e6 * LOW) and estimate.band.high == pytest.approx(4e6 * HIGH)


def test_beyond_the_range_a_line_per_item_is_followed_and_its_interval_widened_per_doubling():
    points = [point(v, linear(v)) for v in (1000, 2000, 4000)]
    estimate = along_value(points, 16000)                  # two doublings beyond 4000
    assert estimate.basis == "linear per item" and estimate.extrapolated
    assert estimate.band.median == pytest.approx(linear(16000))
    margin = 2 * WIDEN_PER_DOUBLING
    assert estimate.band.low == pytest.approx(linear(16000) * LOW / (1 + margin))
    assert estimate.band.high == pytest.approx(linear(16000) * HIGH * (1 + margin))


def test_lines_through_the_lows_and_highs_that_cross_never_give_an_inverted_interval():
    # A wide CI at the small end and a narrow one at the large end: fitted apart, the lows' line
    # rises faster than the highs' and passes it beyond the measured values.
    points = [Point(3000.0, None, 3.0e6, 1.0e6, 4.0e6, None, 1, "suite"),
              Point(5000.0, None, 5.0e6, 4.8e6, 5.2e6, None, 1, "suite")]
    estimate = along_value(points, 20000)
    assert estimate.basis == "linear per item" and estimate.extrapolated
    assert estimate.band.low <= estimate.band.median <= estimate.band.high


def test_a_line_that_does_not_rise_gives_way_to_proportion_from_the_nearest_point():
    points = [point(1000, 9e6), point(2000, 8e6)]          # noise made the slope negative
    estimate = along_value(points, 8000)
    assert estimate.basis == "proportional"
    assert estimate.band.median == pytest.approx(8e6 * 4)


def test_even_a_small_step_beyond_the_range_is_widened_by_one_doubling_at_least():
    points = [point(v, linear(v)) for v in (1000, 2000)]
    estimate = along_value(points, 2100)
    assert estimate.band.high == pytest.approx(linear(2100) * HIGH * (1 + WIDEN_PER_DOUBLING))


def amdahl_series(f=0.1, one_worker_ns=100e6, workers=(1, 2, 4), value=1000):
    return Series("rt", "threads", "threads", (), [point(value, one_worker_ns / amdahl(w, f), w, spread=0.02)
                                                    for w in workers])


def test_a_worker_sweep_gives_the_law_and_the_time_at_other_cores():
    series = amdahl_series()
    law = worker_law(series, None, cpus=8)
    assert law is not None and law.fitted_workers == [1, 2, 4]
    prediction = predict(series, None, 1000, 8, cpus=8)
    assert isinstance(prediction, Prediction)
    assert prediction.time.median == pytest.approx(100e6 / amdahl(8, 0.1), rel=1e-3)
    assert prediction.time.low <= prediction.time.median <= prediction.time.high
    assert prediction.measured_workers == 4
    assert prediction.worker_basis.startswith("not measured: ") and "fit from 1–4 workers" in prediction.worker_basis


def test_cores_beyond_the_machine_are_never_taken_from_an_oversubscribed_measurement():
    series = amdahl_series(workers=(1, 2, 8))                # ×8 measured on 2 CPUs
    prediction = predict(series, None, 1000, 8, cpus=2)
    assert prediction.measured_workers == 2
    assert prediction.worker_basis == "not measured: " + (
        "USL" if worker_law(series, None, 2).law == "usl" else "Amdahl") + " fit from 1–2 workers"


def test_the_asked_cores_measured_need_no_law():
    prediction = predict(amdahl_series(), None, 1000, 2, cpus=8)
    assert prediction.worker_basis == "measured"
    assert prediction.time.median == pytest.approx(100e6 / amdahl(2, 0.1))


def test_without_a_worker_sweep_other_cores_are_not_predicted():
    series = Series("rt", "threads", "threads", (), [point(1000, 5e6, 2)])
    found = predict(series, None, 1000, 4, cpus=8)
    assert isinstance(found, Unpredictable) and "worker sweep" in found.reason


def test_a_model_without_workers_ignores_the_cores():
    series = Series("rt", "seq", "seq", (), [point(1000, 5e6)])
    prediction = predict(series, None, 1000, 64, cpus=2)
    assert prediction.workers is None and prediction.worker_basis == "" and prediction.time.median == 5e6


def test_peak_memory_follows_its_line_with_the_slopes_interval():
    points = [point(v, 1e6, peak=1e6 + 100.0 * v + noise) for v, noise in ((1000, 0), (2000, 500), (4000, -500))]
    band, basis = memory_at(points, 10000)
    assert band.median == pytest.approx(1e6 + 100 * 10000, rel=0.01)
    assert band.low < band.median < band.high and "line over 3 values" in basis
    exact, how = memory_at(points, 2000)
    assert exact.median == 1e6 + 200000 + 500 and how == "measured"


def sampled(value, ns, workers=None):
    """A point with three processes of five samples within ±1 % of `ns`."""
    groups = tuple(np.asarray([ns * (1 + 0.002 * (i - 2) + 0.001 * g) for i in range(5)]) for g in range(3))
    return Point(float(value), workers, ns, ns * 0.99, ns * 1.01, None, 1, "sweep size", groups)


def test_a_parallel_model_says_where_it_starts_to_beat_its_seq():
    # seq: 1 µs an item; threads: 2 ms to start, then 0.5 µs an item: equal at 4,000 items
    values = (1000, 2000, 8000, 16000)
    seq = Series("rt", "seq", "seq", (), [sampled(v, 1e3 * v) for v in values])
    threads = Series("rt", "threads", "threads", (), [sampled(v, 2e6 + 500 * v, 2) for v in values])
    text = predict(threads, seq, 16000, 2, cpus=2).crossover
    assert text.startswith("against seq over 4 values: parallel wins from about ")
    crossing = float(text.split("about ")[1].split()[0])
    assert 2000 < crossing < 8000
