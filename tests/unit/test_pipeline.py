"""pipeline.py: one invocation through configure → … → report, with a kind, a runner and a
sentinel of the test's own, into a real store in a temporary folder."""
import io
import json

import pytest
from rich.console import Console
from unit_world import ScriptedRunner

from parbench import pipeline
from parbench.errors import EXIT_FAILED_CASE, PipelineError
from parbench.kinds.exec import ExecKind, ExecOptions, settings_for
from parbench.kinds.suite import SuiteKind
from parbench.kinds.sweep import SweepKind, SweepRequest
from parbench.measure.runner import Settings
from parbench.measure.schedule import Progress
from parbench.plan.cases import Request
from parbench.records import Case, RunRecord, now
from parbench.store import open_store

SEQ = Case("toy", "rt", "seq", "seq", {"n": 10})
POOL = Case("toy", "rt", "pool", "threads", {"n": 10}, 2)


class UnitKind:
    """Two cases of one table, measured by a scripted runner; one law fitted afterwards."""
    name = "unit"
    of_workloads, resumable, live_tables = True, False, True

    def __init__(self, failing: set[str] = frozenset(), refuse: str = ""):
        self.failing, self.refuse, self.printed = failing, refuse, 0

    def configure(self, invocation) -> None:
        if self.refuse:
            raise PipelineError(self.refuse)
        invocation.runner = ScriptedRunner({"seq": [100, 104], "pool": [50, 52]},
                                           Settings(processes=2, warmup=0, repeat=1, timeout=10), self.failing)
        invocation.cases = [SEQ, POOL]
        invocation.record = RunRecord(None, now(), "smoke", {}, {"hostname": "unit", "logical_cpus": 2}, {})

    def rounds(self, invocation):
        yield invocation.cases

    def analyses(self, record):
        return [("unit-law", "toy", {"cases": len(record.results)})]

    def print_result(self, invocation) -> None:
        self.printed += 1


class QuietSentinel:
    """Reads nothing: the pipeline's drift readings are another module's test (sentinel.py)."""

    def read(self, after: str = ""):
        return None


@pytest.fixture
def output(tmp_path):
    console = Console(file=io.StringIO(), width=200)
    errors = Console(file=io.StringIO(), width=200)
    return pipeline.Output(console, errors, db=str(tmp_path / "unit.sqlite"))


def invoke(kind, output) -> pipeline.Invocation:
    store = open_store(output.db)
    return pipeline.run(pipeline.Invocation(kind, store, output, sentinel=QuietSentinel()), Progress())


def test_every_kind_is_what_the_pipeline_asks_for():
    exec_kind = ExecKind(ExecOptions(["true"]), settings_for(2, None, None, 10, None, "interleaved", 0), 0, {})
    for kind in (SuiteKind(Request()), SweepKind(SweepRequest("workers"), Request()), exec_kind,
                 pipeline.Stored(), UnitKind()):
        assert isinstance(kind, pipeline.Kind), kind


def test_a_run_is_stored_complete_analyzed_and_reported(output):
    kind = UnitKind()
    done = invoke(kind, output)
    assert done.exit_code == 0 and done.closed == "complete" and kind.printed == 1
    stored = open_store(output.db).load_run(done.record.id)
    assert stored.status == "complete" and [r.case.key for r in stored.results] == [SEQ.key, POOL.key]
    assert [len(r.run.processes) for r in done.record.results] == [2, 2]
    assert ("unit-law", "toy", {"cases": 2}) in done.analyses
    assert f"stored as run {done.record.id}" in output.console.file.getvalue()


def test_a_failed_case_is_exit_3_only_under_strict(output):
    assert invoke(UnitKind(failing={"pool"}), output).exit_code == 0
    output.strict = True
    done = invoke(UnitKind(failing={"pool"}), output)
    assert done.exit_code == EXIT_FAILED_CASE
    assert "1 case(s) without a verified timing" in output.errors.file.getvalue()


def test_what_configure_refuses_stores_no_run(output):
    with pytest.raises(PipelineError, match="no such thing"):
        invoke(UnitKind(refuse="no such thing"), output)
    assert open_store(output.db).runs_summary() == []


def test_reports_exports_and_the_baseline_come_from_the_report_stage(output, tmp_path):
    output.out_dir, output.baseline = tmp_path / "out", "main"
    output.exports = {"export_json": str(tmp_path / "run.json")}
    done = invoke(UnitKind(), output)
    assert (tmp_path / "out" / "report.md").exists() and (tmp_path / "out" / "report.json").exists()
    exported = json.loads((tmp_path / "run.json").read_text())
    assert [r["case"]["key"] for r in exported["results"]] == [SEQ.key, POOL.key]
    assert open_store(output.db).baseline("main") == done.record.id


def test_show_goes_through_the_same_report_stage_and_stores_nothing(output, tmp_path):
    done = invoke(UnitKind(), output)
    shown_output = pipeline.Output(Console(file=io.StringIO(), width=200), output.errors, output.db,
                                   exports={"export_json": str(tmp_path / "again.json")})
    shown = pipeline.show(open_store(output.db), str(done.record.id), shown_output)
    assert "rt pool ×2" in shown_output.console.file.getvalue()
    assert "stored as run" not in shown_output.console.file.getvalue()
    again = json.loads((tmp_path / "again.json").read_text())
    assert [r["case"]["key"] for r in again["results"]] == [SEQ.key, POOL.key]
    assert shown.record.id == done.record.id and len(open_store(output.db).runs_summary()) == 1


def test_show_of_a_run_that_is_not_there_is_one_error(output):
    with pytest.raises(PipelineError, match="no run"):
        pipeline.show(open_store(output.db), "9", output)


def test_a_run_on_a_read_only_store_says_it_is_read_only_not_that_the_disk_is_full(output):
    """Issue 46: a read-only store suggested "is the disk full?"."""
    open_store(output.db).close()
    store = open_store(output.db, read_only=True)
    with pytest.raises(PipelineError) as refused:
        pipeline.run(pipeline.Invocation(UnitKind(), store, output, sentinel=QuietSentinel()), Progress())
    assert "the store is read-only" in str(refused.value) and "disk" not in str(refused.value)
