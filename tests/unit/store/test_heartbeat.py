"""heartbeat.py: a thread that stamps its own run in the store, on a connection of its own, until
it is stopped, and survives a store it cannot reach."""
import sqlite3
import time

import pytest

from parbench.records import RunRecord
from parbench.store import open_store
from parbench.store.heartbeat import Heartbeat


def begun(store, owner: str) -> int:
    run_id = store.begin_run(RunRecord(None, "2026-01-01T00:00:00+00:00", "smoke", {}, {}, {}), owner)
    store.db.execute("UPDATE runs SET heartbeat_at = 0 WHERE id = ?", (run_id,))
    store.db.commit()
    return run_id


def stamped(path, run_id: int) -> float:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT heartbeat_at FROM runs WHERE id = ?", (run_id,)).fetchone()[0]


def until(condition, seconds: float = 3.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return False


@pytest.fixture
def store(tmp_path):
    opened = open_store(tmp_path / "r.sqlite")
    yield opened
    opened.close()


def test_a_heartbeat_stamps_its_own_run_and_not_a_run_of_another_owner(store, tmp_path):
    mine, theirs = begun(store, "me"), begun(store, "them")
    beat = Heartbeat(str(tmp_path / "r.sqlite"), mine, "me", every_s=0.01).start()
    try:
        assert until(lambda: stamped(tmp_path / "r.sqlite", mine) > time.time() - 60)
    finally:
        beat.stop()
    assert stamped(tmp_path / "r.sqlite", theirs) == 0
    assert store.heartbeat_age(mine) < 60


def test_a_stopped_heartbeat_ends_its_thread_and_stamps_no_more(store, tmp_path):
    run_id = begun(store, "me")
    beat = Heartbeat(str(tmp_path / "r.sqlite"), run_id, "me", every_s=0.01).start()
    assert until(lambda: stamped(tmp_path / "r.sqlite", run_id) > 0)
    beat.stop()
    beat._thread.join(2)
    assert not beat._thread.is_alive()
    last = stamped(tmp_path / "r.sqlite", run_id)
    time.sleep(0.03)
    assert stamped(tmp_path / "r.sqlite", run_id) == last


def test_a_heartbeat_that_cannot_reach_its_store_keeps_trying_without_dying(tmp_path):
    (tmp_path / "a-file").write_text("")
    beat = Heartbeat(str(tmp_path / "a-file" / "r.sqlite"), 1, "me", every_s=0.005).start()
    time.sleep(0.05)
    assert beat._thread.is_alive()
    beat.stop()
    beat._thread.join(2)
    assert not beat._thread.is_alive()


def test_the_thread_is_a_daemon_named_for_what_it_does(tmp_path):
    beat = Heartbeat(str(tmp_path / "r.sqlite"), 1, "me")
    assert beat._thread.daemon and beat._thread.name == "parbench-heartbeat"
