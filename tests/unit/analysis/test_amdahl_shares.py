"""analysis/amdahl_shares.py: the speedup the CPU and I/O shares of seq predict, beside the achieved."""
import pytest
import unit_records

from parbench.analysis.amdahl_shares import amdahl_shares, predicted_speedup


def test_only_the_cpu_share_is_divided_among_the_workers():
    assert predicted_speedup(0.8, 0.2, 4) == pytest.approx(1 / (0.2 + 0.8 / 4))
    assert predicted_speedup(0.8, 0.2, 0) == pytest.approx(1.0)


def test_shares_come_from_seqs_repetitions_and_each_model_is_set_against_them():
    seq, pool = unit_records.case_run(), unit_records.case_run("pool", "threads", ((50, 55, 52),), workers=2)
    for rep in seq.repetitions:
        rep.extra.update(cpu_ns=75, io_ns=25)
    [shares] = amdahl_shares(unit_records.record([seq, pool]).results, cores=2)
    assert (shares.cpu_share, shares.io_share) == (0.75, 0.25)
    row = next(r for r in shares.rows if r.workers == 2)
    assert row.predicted_speedup == pytest.approx(predicted_speedup(0.75, 0.25, 2))
    assert row.achieved_speedup == pytest.approx(104.5 / 52)


def test_without_seqs_shares_there_is_nothing_to_predict():
    assert amdahl_shares(unit_records.two_models().results, cores=2) == []
