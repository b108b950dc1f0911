"""Shared fixtures: the real parbench CLI run as a subprocess against real implementations."""
from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def parbench(*args: str, root: Path | None = None, env: dict | None = None, timeout: float = 600,
             check: bool = False) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **(env or {})}
    if root is not None:
        full_env["PARBENCH_ROOT"] = str(root)
    done = subprocess.run([sys.executable, "-m", "parbench", *args], capture_output=True, text=True,
                          env=full_env, timeout=timeout, stdin=subprocess.DEVNULL)
    if check and done.returncode != 0:
        raise AssertionError(f"parbench {' '.join(args)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}")
    return done



POSTGRES_URL = os.environ.get("PARBENCH_TEST_POSTGRES", "postgresql://parbench:parbench@127.0.0.1:5432/parbench")


def fresh_postgres_schema(schema: str) -> str:
    """A URL of the test server scoped to a schema made empty for this test, or a skip."""
    psycopg = pytest.importorskip("psycopg")
    try:
        with psycopg.connect(POSTGRES_URL, connect_timeout=5) as db:
            db.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            db.execute(f"CREATE SCHEMA {schema}")
    except psycopg.Error as error:
        pytest.skip(f"no PostgreSQL server: {error}")
    return POSTGRES_URL + f"?options=-csearch_path%3D{schema}"


def wait_until_stored(db: str, query: str, deadline_s: float = 120) -> None:
    """Until the harness has stored what `query` counts (a state it reports, not a time)."""
    deadline = time.time() + deadline_s
    while time.time() < deadline:
        try:
            if sqlite3.connect(db).execute(query).fetchone()[0] >= 1:
                return
        except sqlite3.Error:
            pass
        time.sleep(0.2)
    raise AssertionError(f"the harness never stored: {query}")

@pytest.fixture
def faulty_project(tmp_path: Path) -> Path:
    """A project root with the real workload specs, the misbehaving runtime and one that is absent."""
    root = tmp_path / "project"
    (root / "impls").mkdir(parents=True)
    (root / "workloads").symlink_to(REPO / "workloads")
    (root / "impls" / "faulty").symlink_to(FIXTURES / "faulty")
    ghost = root / "impls" / "ghost"
    ghost.mkdir()
    (ghost / "runtime.toml").write_text(
        'name = "ghost"\nrequires = ["ghost-vm-that-is-not-installed"]\nversion = "ghost --version"\n'
        'install = "apt-get install -y ghost-vm"\n')
    return root


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "results.sqlite")


@pytest.fixture
def hostile_project(tmp_path: Path) -> Path:
    """A project root with the real workload specs and the runtime that attacks the harness."""
    root = tmp_path / "project"
    (root / "impls").mkdir(parents=True)
    (root / "workloads").symlink_to(REPO / "workloads")
    (root / "impls" / "hostile").symlink_to(FIXTURES / "hostile")
    return root
