"""compare.py: the ratio of medians with its bootstrap CI, and which cases each case is
compared with (its runtime's seq, the fastest, within one table only)."""
import numpy as np
import pytest
import unit_records
from unit_records import case_run

from parbench.analysis.compare import attach_comparisons, compare
from parbench.analysis.stats import case_stats
from parbench.records import CaseResult


def results(*runs):
    return [CaseResult(run, stats=case_stats(run, unit_records.CORES)) for run in runs]


def test_comparison_finds_a_real_difference_and_none_where_there_is_none():
    rng = np.random.default_rng(3)
    base = [rng.normal(100, 3, 10) for _ in range(3)]
    same = [rng.normal(100, 3, 10) for _ in range(3)]
    slower = [rng.normal(200, 3, 10) for _ in range(3)]
    assert not compare(same, base, "base").significant
    result = compare(slower, base, "base")
    assert result.significant and 1.9 < result.ratio < 2.1
    assert result.sentence().startswith("2.0") and "x slower +" in result.sentence()


def test_a_comparison_carries_the_reference_the_difference_of_medians_and_a_ci_around_its_ratio():
    result = compare([np.array([300.0, 310, 305]), np.array([302.0, 308])], [np.array([100.0, 101, 99])], "seq")
    assert result.reference == "seq" and result.difference_ns == pytest.approx(305 - 100)
    assert result.ratio_ci[0] <= result.ratio <= result.ratio_ci[1]


def test_the_same_samples_always_give_the_same_interval():
    groups = [np.array([100.0, 130, 90]), np.array([110.0, 95])]
    reference = [np.array([105.0, 99, 120])]
    assert compare(groups, reference, "r").ratio_ci == compare(groups, reference, "r").ratio_ci


def test_a_reference_with_a_zero_time_is_refused():
    with pytest.raises(ValueError, match="zero time"):
        compare([np.array([5.0])], [np.array([0.0, 3.0])], "exec/exec/true[]")


def test_each_case_is_compared_with_its_runtimes_seq_and_with_the_fastest():
    seq, pool = results(case_run(), case_run("pool", "threads", ((50, 55, 52), (51, 54, 53)), workers=2))
    attach_comparisons([seq, pool])
    assert pool.vs_seq.reference == seq.case.key and pool.vs_seq.ratio < 0.6 and pool.vs_seq.significant
    assert seq.vs_fastest.reference == pool.case.key and seq.vs_fastest.ratio > 1.7


def test_the_fastest_case_and_seq_itself_have_no_comparison_with_themselves():
    seq, pool = results(case_run(), case_run("pool", "threads", ((50, 55, 52), (51, 54, 53)), workers=2))
    attach_comparisons([seq, pool])
    assert seq.vs_seq is None and pool.vs_fastest is None


def test_a_seq_of_another_runtime_is_no_reference_for_vs_seq():
    other_seq, pool = results(case_run(runtime="go"), case_run("pool", "threads", ((50, 55), (51, 54)), workers=2))
    attach_comparisons([other_seq, pool])
    assert pool.vs_seq is None and other_seq.vs_fastest.reference == pool.case.key


def test_cases_of_different_sizes_are_never_compared():
    small, big = results(case_run(params={"n": 10}), case_run("pool", "threads", params={"n": 99}, workers=2))
    attach_comparisons([small, big])
    assert (small.vs_fastest, small.vs_seq, big.vs_fastest, big.vs_seq) == (None, None, None, None)


def test_a_case_without_statistics_is_neither_compared_nor_a_reference():
    seq, = results(case_run())
    failed = CaseResult(unit_records.failed_run(model="pool", params={"n": 10}))
    attach_comparisons([seq, failed])
    assert failed.vs_seq is None and failed.vs_fastest is None and seq.vs_fastest is None


def test_a_fastest_case_timed_at_zero_is_not_a_reference():
    zero, slow = results(case_run("a", "exec", ((0, 0), (0, 0))), case_run("b", "exec", ((50, 60), (55, 52))))
    attach_comparisons([zero, slow])
    assert slow.vs_fastest is None
