"""report/analyses.py: one registry of views, each over its typed result."""
from parbench.analysis.drift import Drift
from parbench.analysis.per_task import per_task_costs
from parbench.analysis.results import TimeSplits
from parbench.analysis.startup import TimeSplit
from parbench.records import Analysis
from parbench.report.analyses import tables


def test_each_typed_result_is_a_table_with_its_title_and_notes():
    per_task = per_task_costs([10, 40], [100, 400], [1e6, 4e6], {"n": 160, "outcome": "limit", "detail": "oom"})
    [(title, header, rows, notes)] = tables([Analysis("per-task", "toy/rt/seq", per_task)])
    assert title == "Per task: toy/rt/seq" and len(rows) == 2
    assert any("failed: limit: oom" in note for note in notes)


def test_the_console_leaves_out_what_only_the_files_show():
    split = Analysis("time-split", "all", TimeSplits([TimeSplit("rt seq", 2e6, None, None, 1e6, None)]))
    assert tables([split], console=True) == [] and len(tables([split])) == 1


def test_a_result_that_is_not_its_kinds_type_is_shown_by_no_view():
    assert tables([Analysis("drift", "sitting", {"readings": 3}), Analysis("unknown", "x", {})]) == []
    [(title, _, rows, _)] = tables([Analysis("drift", "sitting", Drift(3, 0.1, 0.0, 0.0, 0.2, {"t": 0.1}))])
    assert title.startswith("Machine drift over this sitting: 10.0%") and rows == [["t", "10.0%"]]
