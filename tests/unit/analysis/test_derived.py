"""analysis/derived.py: which analyses a run's results support, each about its own cases."""
import pytest
import unit_records

from parbench.analysis.derived import analyze_sizes, analyze_tasks, analyze_workers
from parbench.analysis.scaling import ScalingResult


def _pool(workers: int, ns: int):
    return unit_records.case_run("pool", "threads", ((ns, ns + 1, ns + 2), (ns + 1, ns, ns + 2)), workers=workers)


def test_a_model_at_several_worker_counts_is_fitted_against_itself_and_beside_seq():
    record = unit_records.record([unit_records.case_run(), _pool(1, 100), _pool(2, 52)])
    [(kind, subject, result)] = analyze_workers(record, cores=2)
    assert (kind, subject) == ("scaling", "toy/rt/pool") and isinstance(result, ScalingResult)
    assert result.workers == [1, 2] and result.baseline == "the model at 1 worker" and result.cores == 2
    assert result.speedup[1] == pytest.approx(101 / 53, rel=0.01) and result.speedup_vs_seq is not None


def test_one_worker_count_is_no_scaling():
    assert analyze_workers(unit_records.record([unit_records.case_run(), _pool(2, 52)]), cores=2) == []


def test_a_size_sweep_sets_each_parallel_model_against_seq_at_the_same_sizes():
    runs = [unit_records.case_run(params={"n": n}, times=((t, t + 1, t + 2),) * 2) for n, t in ((10, 100), (100, 1000))]
    runs += [unit_records.case_run("pool", "threads", ((t, t + 1, t + 2),) * 2, params={"n": n}, workers=2)
             for n, t in ((10, 300), (100, 400))]
    [(kind, _, result)] = analyze_sizes(unit_records.record(runs), "n")
    assert kind == "crossover" and result.sizes == [10, 100] and result.param == "n" and result.model == "pool"
    assert result.seq_median_ns == [101, 1001]


def test_a_task_sweep_keeps_the_first_count_that_failed():
    ok = [unit_records.case_run(params={"n": n}, times=((n, n + 1, n + 2),) * 2) for n in (10, 40)]
    failed = unit_records.failed_run("seq", params={"n": 160}, family="seq", workers=None)
    [(kind, _, result)] = analyze_tasks(unit_records.record(ok + [failed]), "n")
    assert kind == "per-task" and result.largest_ok == 40
    assert result.failure == {"n": 160, "outcome": "crash", "detail": "exit 1: it fell over"}
