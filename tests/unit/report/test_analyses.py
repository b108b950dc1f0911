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


def test_green_units_whose_memory_does_not_grow_are_flagged_and_a_seq_model_is_not():
    """A chain or swarm of green units leaves evidence the harness measures itself: memory per unit."""
    from dataclasses import replace
    flat = per_task_costs([1000, 10000, 100000], [1e6, 1e7, 1e8], [5e6, 5e6 + 90, 5e6 + 30], None)
    [(_, _, _, notes)] = tables([Analysis("per-task", "toy/rt/goroutines", replace(flat, family="green"))])
    assert any("memory does not grow" in note for note in notes)
    [(_, _, _, notes)] = tables([Analysis("per-task", "toy/rt/seq", replace(flat, family="seq"))])
    assert not any("memory does not grow" in note for note in notes)
    grows = per_task_costs([1000, 10000, 100000], [1e6, 1e7, 1e8], [5e6 + 3e5, 5e6 + 3e6, 5e6 + 3e7], None)
    [(_, _, _, notes)] = tables([Analysis("per-task", "toy/rt/goroutines", replace(grows, family="green"))])
    assert not any("memory does not grow" in note for note in notes)
