"""store/analyzed.py: a stored run read back with its statistics recomputed and its analyses typed."""
import unit_records

from parbench.analysis.drift import Drift
from parbench.analysis.results import MachineCeiling
from parbench.records import RunRecord
from parbench.store import open_store
from parbench.store.analyzed import all_analyses, load_analyzed, load_reports


def _stored(tmp_path):
    store = open_store(str(tmp_path / "unit.sqlite"))
    record = RunRecord(None, "2026-11-25T08:00:00+00:00", "smoke", {}, {"hostname": "unit", "logical_cpus": 2}, {})
    run_id = store.begin_run(record, "gone")
    for run in (unit_records.case_run(), unit_records.case_run("pool", "threads", ((50, 55, 52), (51, 54, 53)), workers=2)):
        store.add_case(run_id, run)
    for position, cpu_ns in enumerate((100, 100, 130)):
        store.add_analysis(run_id, "sentinel", str(position), {"position": position, "after": f"t{position}" if position else "",
                                                               "cpu_ns": cpu_ns, "memory_ns": 10, "steal_share": 0.0,
                                                               "busy_share": 0.5})
    store.add_analysis(run_id, "machine-ceiling", "t1", {"name": "memcpy", "ns": 40})
    store.add_analysis(run_id, "someone-elses", "x", {"anything": 1})
    return store, run_id


def test_statistics_and_comparisons_are_recomputed_from_the_stored_samples(tmp_path):
    store, run_id = _stored(tmp_path)
    record = load_analyzed(store, run_id)
    assert [r.stats.median_ns for r in record.results] == [104.5, 52.5]
    assert record.results[1].vs_fastest is None and record.results[0].vs_fastest.ratio > 1


def test_the_sentinels_readings_become_one_typed_drift_and_other_results_are_typed_or_kept(tmp_path):
    store, run_id = _stored(tmp_path)
    analyses = all_analyses(store, load_analyzed(store, run_id))
    by_kind = {kind: result for kind, _, result in analyses}
    assert isinstance(by_kind["drift"], Drift) and by_kind["drift"].readings == 3 and "sentinel" not in by_kind
    assert by_kind["machine-ceiling"] == MachineCeiling("memcpy", 40)
    assert by_kind["someone-elses"] == {"anything": 1}


def test_reports_of_the_latest_run_by_default_and_each_run_once(tmp_path):
    store, run_id = _stored(tmp_path)
    assert [record.id for record, _ in load_reports(store, [])] == [run_id]
    assert [record.id for record, _ in load_reports(store, [str(run_id), "latest"])] == [run_id]
