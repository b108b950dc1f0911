"""report/comparands.py: which two runs `parbench compare` sets side by side."""
import pytest
import unit_records

from parbench.cli.comparands import comparands
from parbench.errors import PipelineError
from parbench.export import json_format
from parbench.export.base import Report
from parbench.store import open_store


def no_store():
    raise AssertionError("exports are compared without a store")


@pytest.mark.parametrize("runs, baseline, machines", [
    (("a.json",), None, ()), (("a.json", "b.json"), "main", ()), (("1", "2", "3"), None, ()),
    ((), None, ("one",)), (("1", "2"), "main", ())])
def test_a_combination_that_names_no_two_runs_is_one_error(runs, baseline, machines, tmp_path):
    with pytest.raises(PipelineError):
        comparands(runs, baseline, machines, lambda: pytest.fail("opened a store for nothing") if runs and
                   all(r.endswith(".json") for r in runs) else _empty_store(tmp_path))


def _empty_store(tmp_path):
    return open_store(str(tmp_path / "unit.sqlite"))


def test_two_exports_are_compared_analyzed_afresh_without_a_store(tmp_path):
    paths = []
    for run_id in (1, 2):
        path = tmp_path / f"{run_id}.json"
        path.write_text(json_format.render([Report(unit_records.record([unit_records.case_run()], run_id=run_id))]))
        paths.append(str(path))
    (a, drift_a), (b, drift_b) = comparands(tuple(paths), None, (), no_store)
    assert (a.id, b.id) == (1, 2) and (drift_a, drift_b) == ("", "")
    assert a.results[0].stats.median_ns == 104.5
