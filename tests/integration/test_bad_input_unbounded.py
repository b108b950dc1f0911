"""An implementation whose output breaks each bound of the protocol reader (tests/fixtures/unbounded)
and one whose `--list` is malformed (tests/fixtures/badlist): each bad process is a failed case
with its reason, on SQLite and on PostgreSQL alike, and the harness prints no traceback."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO, fresh_postgres_schema, parbench

EXPECTED = {                       # model → (status, a words of its reason)
    "ok": ("ok", ""),
    "huge-ns": ("bad-output", "int64"),
    "deep": ("bad-output", "deeper than"),
    "surrogate": ("bad-output", "lone surrogate"),
    "nan-extra": ("bad-output", "RFC 8259"),
    "too-many-reps": ("bad-output", "is a repetition beyond the"),
    "tiny-lines": ("bad-output", "100,000 lines"),
    "markup-crash": ("crash", "cannot load [/opt/vm/image.bin] at [/src/chain.c:42]"),
    "surrogate-limit": ("crash", "exit 3 without the protocol's limit line"),
}


@pytest.fixture
def unbounded_project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "impls").mkdir(parents=True)
    (root / "workloads").symlink_to(REPO / "workloads")
    for name in ("unbounded", "badlist"):
        (root / "impls" / name).symlink_to(FIXTURES / name)
    return root


def _cases_sqlite(db: str) -> dict[str, tuple[str, str]]:
    rows = sqlite3.connect(db).execute("SELECT model, status, reason FROM cases WHERE workload != 'noop'").fetchall()
    return {model: (status, reason) for model, status, reason in rows}


def _cases_postgres(url: str) -> dict[str, tuple[str, str]]:
    import psycopg
    with psycopg.connect(url) as db:
        rows = db.execute("SELECT model, status, reason FROM cases WHERE workload != 'noop'").fetchall()
    return {model: (status, reason) for model, status, reason in rows}


def _assert_every_bound_held(done, cases) -> None:
    assert "Traceback" not in done.stdout + done.stderr, done.stderr[-3000:]
    assert done.returncode in (0, 3), done.stdout[-2000:] + done.stderr[-2000:]
    for model, (status, words) in EXPECTED.items():
        assert model in cases, f"{model} not stored: {done.stderr[-2000:]}"
        assert cases[model][0] == status and words in cases[model][1], (model, cases[model])


def test_every_bound_of_the_reader_on_sqlite(unbounded_project, tmp_path):
    db = str(tmp_path / "store.sqlite")
    done = parbench("run", "--runtime", "unbounded", "--workload", "spawn-chain", "--scale", "smoke",
                    "--processes", "2", "--db", db, root=unbounded_project, timeout=300)
    _assert_every_bound_held(done, _cases_sqlite(db))
    assert "[/opt/vm/image.bin]" in done.stdout           # printed as written, not as console markup


def test_every_bound_of_the_reader_on_postgresql(unbounded_project):
    url = fresh_postgres_schema("parbench_unbounded_test")
    done = parbench("run", "--runtime", "unbounded", "--workload", "spawn-chain", "--scale", "smoke",
                    "--processes", "2", "--db", url, root=unbounded_project, timeout=300)
    _assert_every_bound_held(done, _cases_postgres(url))


def test_a_runtime_whose_list_is_malformed_is_skipped_with_a_line(unbounded_project):
    done = parbench("list", root=unbounded_project, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stdout + done.stderr, done.stderr
    assert "badlist: skipped" in done.stdout and "model seq must be an object" in done.stdout
    assert "unbounded" in done.stdout                      # the other runtime is listed as it is
