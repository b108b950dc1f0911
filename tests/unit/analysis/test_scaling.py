"""analysis/scaling.py: speedup, efficiency and the Amdahl and USL fits of a worker sweep."""
import pytest

from parbench.analysis.scaling import amdahl, fit_scaling, usl


def test_amdahls_law_gives_its_serial_fractions_ceiling():
    assert float(amdahl(1, 0.1)) == pytest.approx(1.0)
    assert float(amdahl(1e9, 0.1)) == pytest.approx(10.0, rel=1e-6)


def test_usl_without_contention_or_coherence_is_linear():
    assert float(usl(8, 0.0, 0.0)) == pytest.approx(8.0)


def test_times_that_follow_amdahl_give_back_its_serial_fraction():
    workers = [1, 2, 4, 8]
    times = [1000 / float(amdahl(p, 0.2)) for p in workers]
    result = fit_scaling(workers, times, cores=8)
    assert result.speedup == pytest.approx([float(amdahl(p, 0.2)) for p in workers])
    assert result.amdahl.params["f"] == pytest.approx(0.2, abs=1e-3)
    assert result.efficiency[-1] == pytest.approx(result.speedup[-1] / 8)


def test_counts_beyond_the_cpus_are_shown_but_not_fitted():
    result = fit_scaling([1, 2, 4], [1000, 520, 500], cores=2)
    assert result.workers == [1, 2, 4] and result.fitted_workers == [1, 2]
    assert "left out of the fits" in result.note


def test_without_a_one_worker_point_or_a_baseline_there_is_no_speedup():
    with pytest.raises(ValueError):
        fit_scaling([2, 4], [500, 260], cores=4)


def test_two_worker_counts_get_an_amdahl_interval_from_the_runs_themselves():
    import numpy as np
    from parbench.analysis.scaling import fit_scaling, with_run_intervals
    one = [np.asarray([900.0 + i]) for i in range(8)]
    two = [np.asarray([600.0 + i]) for i in range(8)]
    fitted = fit_scaling([1, 2], [903.5, 603.5], cores=2)
    assert fitted.amdahl.ci["f"] is None                   # no degree of freedom left to the fit
    result = with_run_intervals(fitted, [one, two])
    low, high = result.amdahl.ci["f"]
    assert low < result.amdahl.params["f"] < high and high - low < 0.05
    assert result.amdahl.ci_from == "resampled runs"
    assert result.speedup_ci[0] == (1.0, 1.0) and result.speedup_ci[1][0] < 1.5 < result.speedup_ci[1][1]
