"""kinds/sweep.py: the values a sweep measures, its defaults, and the seq models a size sweep adds."""
import pytest
from unit_world import toy_workload, world

from parbench.kinds.sweep import default_workers, geometric, strategy_for, with_seq


def test_a_geometric_range_ends_on_its_last_value():
    assert geometric(64, 1000, 4) == [64, 256, 1000]
    assert geometric(1, 16, 2) == [1, 2, 4, 8, 16]


def test_worker_counts_are_the_powers_of_two_up_to_the_cpus_and_the_cpus():
    assert default_workers(6) == (1, 2, 4, 6) and default_workers(1) == (1,)


def test_a_size_sweep_goes_up_from_its_start_to_the_scales_largest_value():
    strategy = strategy_for("size", toy_workload(), "quick", 2, 10, None, 10, 1, ())
    assert strategy.param == "n" and [r["n"] for r in strategy.rounds] == [10, 100, 1000]
    with pytest.raises(ValueError, match="below --from"):
        strategy_for("size", toy_workload(), "quick", 2, 5000, 100, 10, 1, ())


def test_a_tasks_sweep_takes_the_given_counts_and_stops_a_model_after_it_fails():
    strategy = strategy_for("tasks", toy_workload(), "quick", 2, 64, None, 4, 0, (10, 20))
    assert [r["n"] for r in strategy.rounds] == [10, 20] and strategy.stop_after_failure


def test_named_models_of_a_size_sweep_get_each_runtimes_seq_beside_them():
    _, _, described = world()
    assert with_seq(("pool",), described, "toy") == ("pool", "seq")
    assert with_seq((), described, "toy") == ()
