"""bench_user: who the benchmarks run as, and what each process is given to write."""
import os
import pwd

import pytest

from parbench.measure import bench_user
from parbench.measure.bench_user import BenchUser, NoBenchUser


def test_not_root_or_as_root_runs_benchmarks_as_the_harness_s_own_user(monkeypatch):
    assert bench_user.for_run(as_root=True) is None
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert bench_user.for_run(as_root=False) is None


def test_root_without_the_user_is_one_line_naming_setup_and_as_root(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(pwd, "getpwnam", lambda name: (_ for _ in ()).throw(KeyError(name)))
    with pytest.raises(NoBenchUser, match=r"scripts/setup \(or: useradd --system .*--as-root"):
        bench_user.for_run(as_root=False)


def test_root_runs_benchmarks_as_parbench_bench(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(pwd, "getpwnam", lambda name: pwd.struct_passwd((name, "x", 999, 995, "", "/", "")))
    assert bench_user.for_run(as_root=False) == BenchUser("parbench-bench", 999, 995)


def test_each_process_gets_its_scratch_folder_with_a_home_and_tmp_of_its_own(tmp_path, monkeypatch):
    given = []
    monkeypatch.setattr(os, "chown", lambda path, uid, gid, follow_symlinks: given.append((path, uid, gid)))
    monkeypatch.setenv("XDG_CACHE_HOME", "/root/.cache")
    (tmp_path / "job.sqlite").write_text("")
    env = BenchUser("parbench-bench", 999, 995).take(tmp_path)
    assert env["HOME"] == str(tmp_path / "home") and env["TMPDIR"] == str(tmp_path / "tmp")
    assert env["USER"] == "parbench-bench" and "XDG_CACHE_HOME" not in env
    assert {os.path.relpath(p, tmp_path) for p, _, _ in given} == {".", "home", "tmp", "job.sqlite"}
    assert {(uid, gid) for _, uid, gid in given} == {(999, 995)}


def test_the_run_says_who_ran_its_benchmarks(monkeypatch):
    assert bench_user.described(BenchUser("parbench-bench", 999, 995)).startswith("parbench-bench (uid 999;")
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert bench_user.described(None) == "root (uid 0, --as-root)"
