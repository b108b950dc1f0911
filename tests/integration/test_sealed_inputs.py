"""Cached inputs stay the harness's (docs/reliability.md): they are handed out read-only with
their hash recorded beside them; a process that changes one anyway fails with the reason, and
the input is made anew before the next process reads it."""
import os
import sqlite3
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO, parbench
from parbench.workloads import input_files as inputs
from parbench.workloads.sdes_ecb import inputs as sdes_inputs

SIZE = 4096


@pytest.fixture
def scribbler_project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "impls").mkdir(parents=True)
    (root / "workloads").symlink_to(REPO / "workloads")
    (root / "impls" / "scribbler").symlink_to(FIXTURES / "scribbler")
    return root


def _fresh(size: int, tmp_path: Path) -> bytes:
    reference = tmp_path / f"reference-{size}.tsv"
    sdes_inputs._write(reference, size, 1)
    return reference.read_bytes()


def _scribble(root: Path, cache: Path, db: str, *extra: str) -> None:
    for _ in range(2):                 # the second run finds every input as it was made
        done = parbench("run", "--workload", "sdes-ecb", "--scale", "smoke", "--param", f"size={SIZE}",
                        "--param", "cipher=bitwise", "--processes", "2", "--db", db, *extra,
                        root=root, env={"PARBENCH_CACHE": str(cache)})
        assert "Traceback" not in done.stderr, done.stderr


def _inputs_as_made(cache: Path, tmp_path: Path) -> None:
    for cached in cache.glob("sdes-title-basics-s1-*.tsv"):
        size = int(cached.stem.rsplit("-", 1)[1])
        assert cached.read_bytes() == _fresh(size, tmp_path), f"{cached.name} was left changed"
        assert cached.with_name(cached.name + ".seal").exists() and inputs.changed({"input": str(cached)}) == []
        assert cached.stat().st_mode & 0o222 == 0            # handed out read-only


def test_a_process_that_writes_into_its_input_fails_and_the_input_is_made_anew(scribbler_project, tmp_path):
    # --as-root: root writes a read-only file, as a benchmark of a non-root parbench may chmod its own.
    cache, db = tmp_path / "cache", str(tmp_path / "r.sqlite")
    _scribble(scribbler_project, cache, db, "--as-root")
    details = [d for (d,) in sqlite3.connect(db).execute(
        "SELECT reason FROM cases WHERE model = 'in-place'")]
    assert len(details) == 2 and all("it changed its input sdes-title-basics-s1-" in d for d in details), details
    _inputs_as_made(cache, tmp_path)


def test_under_root_a_benchmark_cannot_write_its_input_at_all(scribbler_project, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("only root hands its benchmarks to the unprivileged user")
    cache, db = tmp_path / "cache", str(tmp_path / "r.sqlite")
    _scribble(scribbler_project, cache, db)
    details = [d for (d,) in sqlite3.connect(db).execute(
        "SELECT reason FROM cases WHERE model = 'in-place'")]
    assert details and not any("changed its input" in d for d in details), details   # it failed to, not after
    _inputs_as_made(cache, tmp_path)
