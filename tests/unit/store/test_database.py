"""The results store: versioned schema, migrations, runs appended and read back as written."""
import sqlite3

import pytest

from conftest import fresh_postgres_schema
from parbench.records import Case, CaseRun, ProcessMeasurement, Repetition, RunRecord
from parbench.store import database, open_store, ownership
from parbench.store.database import StoreError
from parbench.store.schema import MIGRATIONS, SCHEMA_VERSION


def _record() -> RunRecord:
    return RunRecord(None, "2026-01-01T00:00:00+00:00", "smoke", {"scale": "smoke"}, {"cpu": "test"},
                     {"python": {"version": "3.11"}})


def _case_run() -> CaseRun:
    run = CaseRun(Case("keygen", "python", "seq", "seq", {"count": 3}, None, ("why",), "note"), "3:4800")
    run.processes.append(ProcessMeasurement(0, 10, 5, 1, 2048, 3, 4, 0, "ok", "", "tail"))
    run.repetitions.append(Repetition(0, 0, 7, 3, "3:4800", True, {"workers": 1}))
    return run


def test_a_new_database_gets_the_current_schema_version(tmp_path):
    store = open_store(tmp_path / "r.sqlite")
    assert store.db.execute("SELECT schema_version FROM meta").fetchone()[0] == SCHEMA_VERSION


def test_an_old_database_is_migrated_and_keeps_its_runs(tmp_path):
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE meta(schema_version INTEGER NOT NULL)")
    for statement in MIGRATIONS[0]:
        db.execute(statement)
    db.execute("INSERT INTO meta VALUES (1)")
    db.execute("INSERT INTO runs(kind, started_at, status, scale, options_json, machine_json, runtimes_json) "
               "VALUES ('suite', 'then', 'complete', 'quick', '{}', '{}', '{}')")
    db.commit()
    db.close()
    store = open_store(path)
    assert store.db.execute("SELECT schema_version FROM meta").fetchone()[0] == SCHEMA_VERSION
    assert store.run_ids() == [1]
    store.add_analysis(1, "scaling", "x", {"ok": True})     # the table version 2 added


def test_a_newer_database_is_refused_with_a_clear_message(tmp_path):
    path = tmp_path / "new.sqlite"
    open_store(path).db.execute("UPDATE meta SET schema_version = 99").connection.commit()
    with pytest.raises(RuntimeError, match="newer than this parbench understands"):
        open_store(path)


def test_runs_are_appended_never_overwritten_and_read_back_whole(tmp_path):
    store = open_store(tmp_path / "r.sqlite")
    for _ in range(2):
        record = _record()
        store.begin_run(record)
        store.add_case(record.id, _case_run())
        store.finish_run(record.id, "complete", "later")
    assert store.run_ids() == [1, 2]
    back = store.load_run(2)
    assert back.status == "complete" and back.runtimes == {"python": {"version": "3.11"}}
    run = back.results[0].run
    assert run.case.params == {"count": 3} and run.case.overrides == ("why",)
    assert run.processes[0].max_rss_kb == 2048 and run.processes[0].stderr_tail == "tail"
    assert run.repetitions[0].extra == {"workers": 1} and run.repetitions[0].verified
    assert store.resolve("latest") == 2 and store.resolve("latest~1") == 1


def test_the_same_schema_works_on_postgresql():
    url = fresh_postgres_schema("parbench_store_test")
    store = open_store(url)
    record = _record()
    store.begin_run(record)
    store.add_case(record.id, _case_run())
    back = store.load_run(store.resolve("latest"))
    assert back.results[0].run.repetitions[0].ns == 7
    store.close()


def test_a_password_is_shown_as_stars_or_masked_in_place_keeping_the_length():
    from parbench.store.database import redact
    url = "postgresql://bench:s3/c@ret@host/db?sslmode=require&password=other"
    assert redact(url) == "postgresql://bench:***@host/db?sslmode=require&password=***"
    masked = redact(url, mask="*")
    assert len(masked) == len(url) and "s3/c" not in masked and "other" not in masked
    assert masked == "postgresql://bench:********@host/db?sslmode=require&password=*****"


def _open_and_report(path: str, barrier, results) -> None:
    barrier.wait()
    try:
        store = open_store(path)
        results.put(store._owned_version())
        store.close()
    except Exception as error:      # noqa: BLE001 — the test shows what went wrong
        results.put(str(error))


def test_parbench_processes_creating_one_store_at_once_all_succeed_on_the_whole_schema(tmp_path):
    """Issue 46: two runs on a new --db, 1 time in 4 one failed with 'its meta.schema_version
    is []': each CREATE TABLE had been committed on its own, and the second read a half-made one."""
    import multiprocessing
    context = multiprocessing.get_context("fork")
    for attempt in range(6):
        path, results = str(tmp_path / f"new-{attempt}.sqlite"), context.Queue()
        barrier = context.Barrier(4)
        workers = [context.Process(target=_open_and_report, args=(path, barrier, results)) for _ in range(4)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join(60)
        assert [results.get(timeout=5) for _ in workers] == [SCHEMA_VERSION] * 4


def _create_with_a_disk_that_fills(path: str, limit: int) -> None:
    import resource
    import signal
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)       # a write past the limit fails with EFBIG
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    try:
        open_store(path).close()
    except StoreError:
        pass


@pytest.mark.parametrize("limit", [4096, 8192, 16384, 32768])
def test_a_store_whose_disk_filled_while_it_was_created_is_created_whole_by_the_next_command(tmp_path, limit):
    """Issue 46: a store that filled while it was being created stayed half-made, and every
    later command refused it with a message about its schema."""
    import multiprocessing
    path = str(tmp_path / "filling.sqlite")
    worker = multiprocessing.get_context("fork").Process(target=_create_with_a_disk_that_fills, args=(path, limit))
    worker.start()
    worker.join(60)
    store = open_store(path)
    assert store._owned_version() == SCHEMA_VERSION and store.run_ids() == []


def test_a_half_made_store_of_an_older_parbench_is_begun_again(tmp_path):
    """What 91e1742 left on a full disk: the marker and an empty meta table, nothing else."""
    path = tmp_path / "half.sqlite"
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA application_id = {ownership.APPLICATION_ID}")
    db.execute("CREATE TABLE meta(schema_version INTEGER NOT NULL)")
    db.commit()
    db.close()
    assert open_store(path)._owned_version() == SCHEMA_VERSION


@pytest.mark.parametrize("target, said", [
    ("postgresql://u:se%ZZcret@h/db", 'invalid percent-encoded token: "se%ZZcret"'),
    ("postgresql://u:se%ZZcr@et@h/db", 'invalid percent-encoded token: "se%ZZcr"'),     # libpq ends it at the first @
    ("postgresql://u@h/db?password=p%41ss%zz", 'password "pAss%zz" rejected'),         # as decoded
])
def test_a_drivers_message_keeps_no_piece_of_the_password(target, said):
    cleaned = database.without_secrets(said, target)
    assert "***" in cleaned and not any(piece in cleaned for piece in ("se%", "ZZ", "cret", "cr", "ss%", "Ass"))


def test_a_password_parameter_holding_an_at_sign_leaves_the_host_shown_and_no_piece_of_either():
    url = "postgresql://u:Qx%ZZj7@Wv/k9@127.0.0.1:1/db?sslmode=disable&password=Pz@Rq/8"
    assert database.redact(url) == "postgresql://u:***@127.0.0.1:1/db?sslmode=disable&password=***"
    said = database.without_secrets('invalid percent-encoded token: "Qx%ZZj7"; password "Pz@Rq/8"', url)
    assert not any(piece in said for piece in ("Qx%", "j7", "Wv/", "k9", "Pz@", "Rq/"))
