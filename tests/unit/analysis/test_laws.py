"""Each law's fit recovers the parameters planted in synthetic data."""
import numpy as np

from parbench.analysis import crossover, per_task, scaling
from parbench.analysis.amdahl_shares import predicted_speedup


def test_amdahl_fit_recovers_the_serial_fraction():
    workers = [1, 2, 4, 8, 16]
    times = [1e9 / scaling.amdahl(p, 0.1) for p in workers]
    result = scaling.fit_scaling(workers, times, cores=16)
    assert abs(result.amdahl.params["f"] - 0.1) < 1e-3


def test_usl_fit_recovers_contention_and_coherency_and_the_peak():
    rng = np.random.default_rng(4)
    workers = [1, 2, 4, 8, 16, 32, 64]
    times = [1e9 / scaling.usl(p, 0.05, 0.002) * rng.normal(1, 0.005) for p in workers]
    times[0] = 1e9
    result = scaling.fit_scaling(workers, times, cores=64)
    assert abs(result.usl.params["sigma"] - 0.05) < 0.01
    assert abs(result.usl.params["kappa"] - 0.002) < 0.0005
    low, high = result.usl.ci["sigma"]
    assert low < 0.05 < high
    expected_peak = np.sqrt((1 - 0.05) / 0.002)
    assert abs(result.peak_workers - expected_peak) / expected_peak < 0.15


def test_two_worker_counts_fit_amdahl_but_say_usl_needs_three():
    result = scaling.fit_scaling([1, 2], [1e9, 0.6e9], cores=2)
    assert abs(result.amdahl.params["f"] - 0.2) < 1e-3
    assert result.usl is None and "too few for the USL" in result.note
    assert result.amdahl.ci["f"] is None        # one informative point: a value, no interval


def _groups(median: float, rng, processes=3, reps=5, noise=0.03):
    return [rng.normal(median, median * noise, reps) for _ in range(processes)]


def test_crossover_finder_finds_the_planted_crossing():
    rng = np.random.default_rng(5)
    sizes = [64 * 4 ** k for k in range(9)]                       # 64 B … 4 MiB
    seq = [s * 10.0 for s in sizes]                               # 10 ns a byte
    parallel = [120_000 + s * 5.0 for s in sizes]                 # 120 µs overhead, twice as fast
    planted = 120_000 / 5.0                                       # 24,000 bytes
    found = crossover.find_crossover(sizes, [_groups(t, rng) for t in seq], [_groups(t, rng) for t in parallel])
    assert found.crossover is not None
    assert 0.5 * planted < found.crossover < 2 * planted
    assert found.crossover_ci[0] < planted * 1.3 and found.crossover_ci[1] > planted * 0.7


def test_crossover_says_never_when_parallel_always_loses():
    rng = np.random.default_rng(6)
    sizes = [64, 256, 1024, 4096]
    found = crossover.find_crossover(sizes, [_groups(s * 10.0, rng) for s in sizes],
                                     [_groups(s * 20.0 + 1e5, rng) for s in sizes])
    assert found.crossover is None and found.verdict.startswith("never crosses in range")


def test_bisection_proposes_the_midpoint_of_the_bracket():
    assert crossover.refine_between([1000, 16000], [1.5, 0.5]) == np.sqrt(1000 * 16000)


def test_slope_recovers_planted_bytes_per_task_and_the_baseline():
    rng = np.random.default_rng(7)
    counts = [10_000, 40_000, 100_000, 400_000, 1_000_000]
    rss = [30e6 + 2600 * n + rng.normal(0, 2e5) for n in counts]    # a BEAM process: ~2.6 KB
    result = per_task.per_task_costs(counts, [n * 4000.0 for n in counts], rss)
    assert abs(result.bytes_per_unit.per_unit - 2600) < 10
    assert abs(result.bytes_per_unit.intercept - 30e6) < 1e6
    assert result.bytes_per_unit.r_squared > 0.999
    assert abs(result.time_per_unit_ns.per_unit - 4000) < 1e-6


def test_amdahl_shares_prediction_is_the_seed_articles_reasoning():
    # CPU 1 : I/O 0.5, and halving the CPU part: 2/3 of the time, 1.5x.
    assert abs(predicted_speedup(2 / 3, 1 / 3, 2) - 1.5) < 1e-9


def test_worker_counts_beyond_the_cores_are_shown_but_not_fitted():
    workers = [1, 2, 3, 4]
    times = [1e9, 0.526e9, 0.52e9, 0.53e9]          # 1.9x on 2 cores, then flat
    result = scaling.fit_scaling(workers, times, cores=2)
    assert result.workers == [1, 2, 3, 4] and result.fitted_workers == [1, 2]
    assert abs(result.amdahl.params["f"] - (2 / 1.9 - 1)) < 1e-3      # from 1 and 2 only
    assert "above the 2 logical CPUs (3, 4)" in result.note
