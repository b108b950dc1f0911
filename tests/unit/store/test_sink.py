"""sink.py: processes stored as they are measured, retried with back-off, a case written whole when
its rows are incomplete, and a journal for what the store would not take."""
import json
import sqlite3

import pytest

import unit_records
from parbench.records import RunRecord
from parbench.store import codec, open_store, sink
from parbench.store.database import StoreError
from parbench.store.sink import DiskFull, Journal, StoreSink, read_journal, retrying


def record() -> RunRecord:
    return RunRecord(None, "2026-01-01T00:00:00+00:00", "smoke", {"repeat": 3}, {"hostname": "unit"}, {})


@pytest.fixture
def store(tmp_path):
    opened = open_store(tmp_path / "r.sqlite")
    yield opened
    opened.close()


class Failing:
    """A piece of work that fails `times` times with `error`, then returns "done"."""

    def __init__(self, times: int, error: BaseException = sqlite3.OperationalError("database is locked")):
        self.left, self.error, self.calls = times, error, 0

    def __call__(self):
        self.calls += 1
        if self.left:
            self.left -= 1
            raise self.error
        return "done"


# --- retrying ---------------------------------------------------------------------------------------
def test_work_that_succeeds_at_once_waits_for_nothing(store):
    slept = []
    assert retrying(store, Failing(0), slept.append, (1, 2)) == "done" and slept == []


def test_failed_work_is_retried_after_each_delay_on_a_fresh_connection(store):
    slept, work, first = [], Failing(2), store.db
    assert retrying(store, work, slept.append, (0.5, 1, 2)) == "done"
    assert slept == [0.5, 1] and work.calls == 3 and store.db is not first


def test_work_that_never_succeeds_raises_its_last_error_after_every_delay(store):
    slept, work = [], Failing(99)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        retrying(store, work, slept.append, (1, 2))
    assert slept == [1, 2] and work.calls == 3


def test_without_delays_given_the_configured_ones_are_used(store):
    slept = []
    with pytest.raises(sqlite3.OperationalError):
        retrying(store, Failing(99), slept.append)
    assert slept == list(sink.RETRY_DELAYS_S)


@pytest.mark.parametrize("error", [sqlite3.OperationalError("database or disk is full"),
                                   OSError(28, "No space left on device")])
def test_a_full_disk_is_not_retried(store, error):
    slept, work = [], Failing(99, error)
    with pytest.raises(type(error)):
        retrying(store, work, slept.append, (1, 2))
    assert slept == [] and work.calls == 1


def test_an_error_that_is_not_the_store_s_is_not_retried(store):
    work = Failing(1, KeyError("bug"))
    with pytest.raises(KeyError):
        retrying(store, work, lambda s: None, (1,))
    assert work.calls == 1


def test_the_store_s_errors_include_sqlite_s_the_disk_s_and_its_own():
    assert {sqlite3.Error, OSError, StoreError} <= set(sink.store_errors())


# --- the journal -----------------------------------------------------------------------------------
def test_a_journal_reads_back_its_cases_and_the_run_s_end(tmp_path):
    run_record, case = record(), unit_records.case_run()
    journal = Journal(tmp_path / "journals" / "run.jsonl", run_record)
    journal.append(case)
    journal.finish("complete", "2026-01-01T00:01:00+00:00")
    assert journal.count == 1
    entries = read_journal(journal.path)
    assert entries == [(codec.run_header(run_record), case, None),
                       (codec.run_header(run_record), None,
                        {"status": "complete", "finished_at": "2026-01-01T00:01:00+00:00"})]


def test_a_journal_that_cannot_be_written_is_a_full_disk_naming_the_file(tmp_path):
    (tmp_path / "a-file").write_text("")
    journal = Journal(tmp_path / "a-file" / "run.jsonl", record())
    with pytest.raises(DiskFull, match="could not store toy/rt/seq.* nor in the journal .*a-file/run.jsonl"):
        journal.append(unit_records.case_run())
    assert journal.count == 0


@pytest.mark.parametrize("lines, message", [
    (["{}"], "line 1: no run header"),
    (["", "not json"], "line 2: not JSON"),
    (["[1]"], "line 1: no run header"),
    ([json.dumps({"run": {}})], "line 1: run"),
    ([json.dumps({"run": "HEADER", "finish": {"status": "complete"}})], "line 1: finish is not a status and a time"),
    ([json.dumps({"run": "HEADER", "case": {"case": {}}})], "line 1"),
])
def test_a_journal_line_that_is_not_one_is_refused_naming_the_line(tmp_path, lines, message):
    header = json.dumps(codec.run_header(record()))
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(line.replace('"HEADER"', header) for line in lines) + "\n")
    with pytest.raises(codec.BadShape, match=message):
        read_journal(path)


def test_blank_lines_of_a_journal_are_skipped(tmp_path):
    path = tmp_path / "j.jsonl"
    path.write_text("\n  \n" + json.dumps({"run": codec.run_header(record())}) + "\n\n")
    assert read_journal(path) == [(codec.run_header(record()), None, None)]


# --- the sink -------------------------------------------------------------------------------------
def measure_into(target: StoreSink, case) -> None:
    """What the scheduler tells a sink about one case: its start, each process, its end."""
    target.case_started(case)
    for process in case.processes:
        target.process_done(case, process, [r for r in case.repetitions if r.process == process.index])
    target.case_done(case)


def rows(store, run_id: int) -> list[tuple]:
    """(case key, status, its processes, its samples) of each stored case of the run."""
    return store.db.execute(
        "SELECT case_key, status, (SELECT COUNT(*) FROM processes WHERE case_id = cases.id), "
        "(SELECT COUNT(*) FROM samples WHERE case_id = cases.id) FROM cases WHERE run_id = ? ORDER BY id",
        (run_id,)).fetchall()


def sink_for(store, tmp_path) -> StoreSink:
    run_record = record()
    store.begin_run(run_record)
    return StoreSink(store, run_record, tmp_path / "journals", sleep=lambda s: None)


def failing(*_args, **_kwargs):
    raise sqlite3.OperationalError("disk I/O error")


def test_each_process_is_stored_as_it_is_measured_and_the_case_finished(store, tmp_path):
    target, case = sink_for(store, tmp_path), unit_records.case_run()
    target.case_started(case)
    first = case.processes[0]
    target.process_done(case, first, [r for r in case.repetitions if r.process == 0])
    assert rows(store, target.record.id) == [(case.case.key, "running", 1, 3)]
    target.process_done(case, case.processes[1], [r for r in case.repetitions if r.process == 1])
    target.case_done(case)
    assert rows(store, target.record.id) == [(case.case.key, "ok", 2, 6)]
    assert target.errors == [] and not target.journal.path.exists()


def test_a_case_whose_rows_are_incomplete_is_written_again_whole(store, tmp_path, monkeypatch):
    target, case = sink_for(store, tmp_path), unit_records.case_run()
    monkeypatch.setattr(store, "add_process", failing)
    measure_into(target, case)
    assert rows(store, target.record.id) == [(case.case.key, "ok", 2, 6)]
    assert len(target.errors) == 1 and target.errors[0].startswith(f"{case.case.key}: disk I/O error")


def test_a_case_the_store_never_takes_goes_to_the_journal(store, tmp_path, monkeypatch):
    target, case = sink_for(store, tmp_path), unit_records.case_run()
    for method in ("begin_case", "replace_case"):
        monkeypatch.setattr(store, method, failing)
    measure_into(target, case)
    assert rows(store, target.record.id) == []
    assert [entry[1] for entry in read_journal(target.journal.path)] == [case]
    assert target.journal.path.name.startswith(f"run-{target.record.id}-")


def test_when_neither_the_store_nor_the_journal_takes_a_case_the_disk_is_full(store, tmp_path, monkeypatch):
    run_record = record()
    store.begin_run(run_record)
    (tmp_path / "a-file").write_text("")
    target = StoreSink(store, run_record, tmp_path / "a-file", sleep=lambda s: None)
    for method in ("begin_case", "replace_case"):
        monkeypatch.setattr(store, method, failing)
    with pytest.raises(DiskFull):
        measure_into(target, unit_records.case_run())


def test_one_broken_case_does_not_stop_the_next_from_being_stored_process_by_process(store, tmp_path, monkeypatch):
    target = sink_for(store, tmp_path)
    broken, fine = unit_records.case_run("pool", "threads", workers=2), unit_records.case_run()
    with monkeypatch.context() as patch:
        patch.setattr(store, "finish_case", failing)
        measure_into(target, broken)
    measure_into(target, fine)
    assert rows(store, target.record.id) == [(broken.case.key, "ok", 2, 6), (fine.case.key, "ok", 2, 6)]
    assert [e.split(":")[0] for e in target.errors] == [broken.case.key]


def test_a_journal_whose_repetition_outlasts_its_process_is_refused_naming_ns(tmp_path):
    """Issue 46: `load` stored ns = 9·10^18 from a process that ran 14 ms as verified."""
    case = unit_records.case_run()
    data = codec.case_run_dict(case)
    data["repetitions"][0]["ns"] = 9 * 10 ** 18
    path = tmp_path / "impossible.jsonl"
    path.write_text(json.dumps({"run": codec.run_header(record()), "case": data}) + "\n")
    with pytest.raises(codec.BadShape, match="line 1: .*ns = 9000000000000000000, longer than its process's wall_ns"):
        read_journal(path)


def test_the_likely_cause_of_a_refused_write_is_read_from_the_error_never_guessed(tmp_path):
    from parbench.store.sink import likely_cause
    assert likely_cause(OSError(28, "No space left on device")) == "the disk is full"
    assert likely_cause(sqlite3.OperationalError("attempt to write a readonly database")) == "the store is read-only"
    assert likely_cause(sqlite3.OperationalError("no such table: runs")) == ""
