"""store/upkeep.py: runs whose harness died are marked interrupted; a journal's cases are loaded."""
import json

import pytest
import unit_records

from parbench.measure import liveness
from parbench.records import RunRecord
from parbench.store import codec, open_store
from parbench.store.upkeep import load_journal, mark_orphans


def new_run(store, owner: str) -> int:
    return store.begin_run(RunRecord(None, "2026-11-25T08:00:00+00:00", "smoke", {}, {"hostname": "unit"}, {}), owner)


def test_a_run_whose_owner_is_gone_is_marked_and_a_living_ones_is_not(tmp_path):
    store = open_store(str(tmp_path / "unit.sqlite"))
    dead, alive = new_run(store, "gone"), new_run(store, liveness.owner_id())
    assert [(o.run_id, bool(o.why)) for o in mark_orphans(store)] == [(dead, True)]
    assert store.load_run(dead).status == "interrupted" and store.load_run(alive).status == "running"
    assert mark_orphans(store) == []


def journal_line(header: dict, case=None, finish=None) -> str:
    entry = {"run": header}
    if case is not None:
        entry["case"] = codec.case_run_dict(case)
    if finish is not None:
        entry["finish"] = finish
    return json.dumps(entry)


def test_a_journals_cases_and_end_are_stored_once_however_often_it_is_loaded(tmp_path):
    store = open_store(str(tmp_path / "unit.sqlite"))
    header = {"id": 7, "started_at": "2026-11-25T08:00:00+00:00", "scale": "smoke", "options": {},
              "machine": {"hostname": "elsewhere"}, "runtimes": {}, "status": "running", "finished_at": None,
              "kind": "suite"}
    journal = tmp_path / "run.journal"
    journal.write_text("\n".join([journal_line(header, unit_records.case_run()),
                                  journal_line(header, finish={"status": "complete", "finished_at": "later"})]))
    first, second = load_journal(journal, lambda: store), load_journal(journal, lambda: store)
    assert first.cases == 1 and first.run_ids == second.run_ids
    run = store.load_run(first.run_ids[0])
    assert run.status == "complete" and [r.case.key for r in run.results] == ["toy/rt/seq[n=10]"]


def test_a_file_that_is_no_journal_is_refused_before_anything_is_stored(tmp_path):
    journal = tmp_path / "not.journal"
    journal.write_text('{"case": {}}\n')
    with pytest.raises(ValueError, match="line 1"):
        load_journal(journal, lambda: pytest.fail("opened the store for a file that is no journal"))
