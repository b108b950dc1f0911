"""The statistics recover what was planted in synthetic samples."""
import numpy as np

from parbench.analysis.stats import bootstrap_medians, case_stats, confidence_interval, tukey_outliers
from parbench.records import Case, CaseRun, ProcessMeasurement, Repetition


def _run(samples_by_process: list[list[float]]) -> CaseRun:
    run = CaseRun(Case("spawn-chain", "x", "seq", "seq", {"n": 1}), "1")
    for p, samples in enumerate(samples_by_process):
        run.processes.append(ProcessMeasurement(p, int(sum(samples) * 1.1), int(sum(samples)), 0, 1000,
                                                0, 0, 0, "ok"))
        run.repetitions += [Repetition(p, r, int(ns), 1, "1", True) for r, ns in enumerate(samples)]
    return run


def test_bootstrap_ci_of_the_median_covers_the_true_median():
    rng = np.random.default_rng(1)
    covered = 0
    for _ in range(40):
        groups = [rng.normal(100.0, 5.0, 10) for _ in range(4)]
        low, high = confidence_interval(bootstrap_medians(groups, resamples=400))
        covered += low <= 100.0 <= high
    assert covered >= 34          # a 95 % interval: about 38 of 40, never far fewer


def test_two_level_bootstrap_widens_when_processes_disagree():
    rng = np.random.default_rng(2)
    agreeing = [rng.normal(100, 1, 20) for _ in range(4)]
    disagreeing = [rng.normal(mu, 1, 20) for mu in (90, 100, 110, 120)]
    width = lambda g: np.subtract(*confidence_interval(bootstrap_medians(g, resamples=500))[::-1])
    assert width(disagreeing) > 5 * width(agreeing)


def test_tukey_flags_a_planted_outlier_on_each_side():
    samples = np.array([10, 11, 10, 12, 11, 10, 11, 50, 1.0])
    assert tukey_outliers(samples) == (1, 1)


def test_unverified_repetitions_are_left_out_of_the_statistics():
    run = _run([[100, 100, 100]])
    run.repetitions.append(Repetition(0, 3, 10_000, 1, "wrong", False))
    stats = case_stats(run, cores=2)
    assert stats.n == 3 and stats.max_ns == 100


def test_cpu_utilisation_is_cpu_over_wall_times_cores():
    stats = case_stats(_run([[100, 100]]), cores=2)
    assert abs(stats.cpu_utilisation - 200 / (220 * 2)) < 0.01
