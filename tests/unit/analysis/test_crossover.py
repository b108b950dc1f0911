"""analysis/crossover.py: the size from which the parallel model beats seq, with its CI."""
import numpy as np

from parbench.analysis.crossover import find_crossover, refine_between


def _groups(median: float) -> list[np.ndarray]:
    return [np.array([median * 0.99, median, median * 1.01]) for _ in range(3)]


def test_a_ratio_that_falls_below_one_crosses_between_the_sizes_that_bracket_it():
    sizes = [100, 1000, 10000, 100000]
    seq = [_groups(s) for s in sizes]
    parallel = [_groups(s * r) for s, r in zip(sizes, (4.0, 2.0, 0.5, 0.3))]
    result = find_crossover(sizes, seq, parallel)
    assert 1000 < result.crossover < 10000
    assert result.verdict.startswith("parallel wins from about")


def test_a_parallel_model_slower_at_every_size_never_crosses():
    sizes = [100, 1000]
    result = find_crossover(sizes, [_groups(s) for s in sizes], [_groups(3 * s) for s in sizes])
    assert result.crossover is None and "slower at every size" in result.verdict


def test_refinement_bisects_the_bracket_geometrically_and_stops_when_it_is_tight():
    assert refine_between([100, 10000], [2.0, 0.5]) == 1000
    assert refine_between([100, 120], [2.0, 0.5]) is None
    assert refine_between([100, 10000], [2.0, 1.5]) is None
