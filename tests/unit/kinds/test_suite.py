"""kinds/suite.py: what `run --resume` may take over, and the request it finishes."""
import pytest

from parbench.errors import PipelineError
from parbench.kinds.suite import claim_for_resume
from parbench.measure import liveness
from parbench.records import RunRecord
from parbench.store import open_store


def _store_with(tmp_path, kind: str = "suite", owner: str = "gone", status: str | None = None):
    store = open_store(str(tmp_path / "unit.sqlite"))
    options = {"scale": "smoke", "workloads": ["toy"], "workers": [1, 2], "repeat": 2, "not_a_request_field": 1}
    run_id = store.begin_run(RunRecord(None, "2026-11-25T08:00:00+00:00", "smoke", options, {"hostname": "unit"}, {},
                                       kind=kind), owner)
    if status:
        store.finish_run(run_id, status, "2026-11-25T08:01:00+00:00")
    return store, run_id


def test_an_interrupted_run_is_taken_over_with_the_request_it_was_started_with(tmp_path):
    store, run_id = _store_with(tmp_path, status="interrupted")
    record, request = claim_for_resume(store, str(run_id))
    assert record.id == run_id and request.workloads == ("toy",) and request.workers == (1, 2)
    assert request.repeat == 2 and store.run_owner(run_id) == liveness.owner_id()


@pytest.mark.parametrize("kind, owner, status, refusal", [
    ("suite", "gone", "complete", "is complete: nothing to resume"),
    ("sweep", "gone", "interrupted", "finishes suite runs only"),
    ("exec", "gone", "interrupted", "is an exec run"),
    ("suite", None, None, "is being measured right now")])
def test_what_cannot_be_resumed_is_one_error_saying_why(tmp_path, kind, owner, status, refusal):
    store, run_id = _store_with(tmp_path, kind, owner or liveness.owner_id(), status)
    with pytest.raises(PipelineError, match=refusal):
        claim_for_resume(store, str(run_id))


def test_a_run_that_is_not_there_is_one_error(tmp_path):
    store, _ = _store_with(tmp_path)
    with pytest.raises(PipelineError, match="no run"):
        claim_for_resume(store, "9")
