"""export/json_format.py: hyperfine's fields in seconds, parbench's beside them, and read back."""
import json
import statistics

import pytest

from unit_records import two_models

from parbench.export import json_format
from parbench.export.base import Report


def test_a_measured_case_has_hyperfines_fields_in_seconds_from_its_verified_samples():
    record = two_models()
    document = json.loads(json_format.render([Report(record)]))
    seq = next(r for r in document["results"] if r["case"]["model"] == "seq")
    assert seq["median"] == pytest.approx(statistics.median([100, 110, 105, 102, 108, 104]) * 1e-9)
    assert seq["min"] == pytest.approx(100e-9) and seq["max"] == pytest.approx(110e-9) and len(seq["times"]) == 6
    assert seq["exit_codes"] == [0, 0]


def test_a_failed_case_is_a_failure_with_its_reason_never_a_result():
    document = json_format.document([Report(two_models())])
    assert [f["case"]["model"] for f in document["failures"]] == ["broken"]
    assert document["failures"][0]["reason"] == "exit 1: it fell over"
    assert all(r["case"]["model"] != "broken" for r in document["results"])


def test_an_export_reads_back_as_the_same_cases_and_samples(tmp_path):
    record = two_models()
    path = tmp_path / "run.json"
    path.write_text(json_format.render([Report(record, [("drift", "sitting", {"readings": 3})])]))
    again = json_format.read(path)[-1]
    assert [r.case.key for r in again.results] == [r.case.key for r in record.results]
    assert [r.run.repetitions for r in again.results] == [r.run.repetitions for r in record.results]
    assert json_format.read_analyses(path, record.id) == [("drift", "sitting", {"readings": 3})]


def test_a_file_that_is_not_an_export_is_refused_with_a_sentence(tmp_path):
    path = tmp_path / "other.json"
    path.write_text('{"results": []}')
    try:
        json_format.read(path)
    except json_format.NotAnExport as error:
        assert str(error)
    else:
        raise AssertionError("read an arbitrary JSON object as an export")


def test_an_export_whose_sample_outlasts_its_process_is_refused_naming_ns(tmp_path):
    """Issue 46: `compare` took ns = 9·10^18 from exported JSON as measured."""
    path = tmp_path / "run.json"
    document = json.loads(json_format.render([Report(two_models(), [])]))
    document["results"][0]["processes"][0]["samples"][0]["ns"] = 9 * 10 ** 18
    path.write_text(json.dumps(document))
    with pytest.raises(json_format.NotAnExport, match="ns = 9000000000000000000, longer than its process's wall_ns"):
        json_format.read(path)


def test_strong_keys_are_exported_as_form_checked_and_other_answers_as_checksums():
    from unit_records import case_run, record
    strong = case_run(workload="keygen", params={"count": 10, "bytes": 20, "source": "strong"})
    document = json.loads(json_format.render([Report(record([strong]))]))
    assert document["results"][0]["verification"]["proof"] == "form checked"
    plain = json.loads(json_format.render([Report(two_models())]))
    assert {r["verification"]["proof"] for r in plain["results"] if "verification" in r} == {"checksum"}
    green = case_run("goroutines", "green", workload="spawn-chain", params={"n": 10})
    document = json.loads(json_format.render([Report(record([green]))]))
    assert document["results"][0]["verification"]["proof"] == "units unverified"
