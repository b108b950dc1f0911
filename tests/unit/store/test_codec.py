"""store/codec.py: records ⇄ plain dicts, the one shape the journal and the JSON export share."""
import json

import pytest
import unit_records

from parbench.store import codec


def test_a_measured_case_comes_back_whole_through_json():
    run = unit_records.case_run("pool", "threads", workers=2)
    run.flags["stopped"] = "converged after 2 processes"
    again = codec.case_run_from_dict(json.loads(json.dumps(codec.case_run_dict(run))))
    assert again == run


def test_a_case_carries_its_key_which_reading_derives_again():
    case = unit_records.case_run(workers=2).case
    data = codec.case_dict(case)
    assert data["key"] == case.key and codec.case({**data, "key": "anything"}, "a case") == case


def test_a_process_nests_its_samples_only_when_asked():
    run = unit_records.case_run()
    assert "samples" not in codec.process_dict(run.processes[0])
    assert len(codec.process_dict(run.processes[0], run.repetitions[:3])["samples"]) == 3


def test_a_run_header_is_the_run_without_its_results():
    header = codec.run_header(unit_records.two_models())
    assert "results" not in header and codec.run_record(header, "a run").id == 1


@pytest.mark.parametrize("change, named", [
    (lambda d: d["processes"][0].update(wall_ns="fast"), "wall_ns"),
    (lambda d: d["repetitions"][0].update(ns=10 ** 20), "ns"),
    (lambda d: d["case"].update(overrides="n=5"), "overrides"),
    (lambda d: d.pop("status"), "status"),
    (lambda d: d.update(expected_checksum=42), "checksum")])
def test_a_wrong_field_is_one_line_naming_it(change, named):
    data = json.loads(json.dumps(codec.case_run_dict(unit_records.case_run())))
    change(data)
    with pytest.raises(codec.BadShape, match=named):
        codec.case_run_from_dict(data)


@pytest.mark.parametrize("change, named", [
    (lambda d: d["repetitions"][0].update(ns=9 * 10 ** 18), "ns = 9000000000000000000"),
    (lambda d: d["repetitions"][0].update(ns=d["processes"][0]["wall_ns"]) or
     d["repetitions"][1].update(ns=d["processes"][0]["wall_ns"]), "add up to ns"),
    (lambda d: d["repetitions"][0].update(process=7), "process 7"),
    (lambda d: d["repetitions"][0].update(items=10 ** 12), "items = "),
    (lambda d: d["repetitions"][0]["extra"].update(user_ns=10 ** 15), "user_ns = 1000000000000000, outside"),
    (lambda d: d["repetitions"][0]["extra"].update(sys_ns=-1), "sys_ns = -1, outside")])
def test_a_figure_no_measurement_could_give_is_refused_naming_it(change, named):
    """A repetition's time within its process's wall time, its items the case's one count:
    a journal or an export holding more is refused (issue 46: 9·10^18 ns stored as verified)."""
    data = json.loads(json.dumps(codec.case_run_dict(unit_records.case_run())))
    change(data)
    with pytest.raises(codec.BadShape, match=named) as refused:
        codec.case_run_from_dict(data)
    assert "\n" not in str(refused.value)


def _with_first_extra(**extra):
    run = unit_records.case_run()            # process 0: 315 ns of repetitions in a 1,630 ns wall
    run.repetitions[0].extra.update(extra)
    return run


@pytest.mark.parametrize("extra, named", [
    ({"first_ns": 9 * 10 ** 18}, "first_ns = 9000000000000000000, outside 1 … its process's wall_ns = 1630"),
    ({"first_ns": 0}, "first_ns = 0, outside 1"),
    ({"first_ns": -5}, "first_ns = -5, outside 1"),
    ({"first_ns": 1.5}, "first_ns = 1.5, not a whole number"),
    ({"warmup_ns": -1}, "warmup_ns = -1, outside 0"),
    ({"warmup_ns": 1631}, "warmup_ns = 1631, outside 0 … its process's wall_ns = 1630"),
    ({"warmup_ns": 1316}, "add up to ns = 1631, longer than its wall_ns = 1630"),     # with its 315 ns timed
    ({"gap_ns": 10 ** 12}, "gap_ns = 1000000000000, outside 0"),
    ({"warmup_reps": -3}, "warmup_reps = -3, not a count"),
    ({"warmup_reps": True}, "warmup_reps = True, not a count"),
    ({"warmup_reps": 10 ** 6}, "warmup_reps = 1000000, not a count"),
])
def test_a_warm_up_figure_beyond_its_process_is_refused_naming_the_field(extra, named):
    with pytest.raises(codec.BadShape, match=named):
        codec.times_checked(_with_first_extra(**extra), "line 2")


def test_warm_up_figures_within_their_process_are_taken():
    run = _with_first_extra(first_ns=200, warmup_ns=1315, warmup_reps=3, gap_ns=120)
    assert codec.times_checked(run, "line 2") is run
