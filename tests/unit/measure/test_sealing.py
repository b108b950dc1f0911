"""sealing.py: what no call of an implementation may see, where scratch folders live, as whom a
call that is not a benchmark runs."""
import os
import stat
from pathlib import Path

import pytest

from parbench.measure import bench_user, sealing
from parbench.project import RESULTS_DIR


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PARBENCH_CACHE", str(tmp_path / "inputs"))
    return tmp_path


def test_scratch_folders_live_where_every_user_may_traverse():
    root = sealing.scratch_root()
    assert root.is_dir() and os.stat(root).st_mode & 0o001        # others may search it


def test_under_root_the_oracle_every_store_of_results_and_the_runs_own_store_are_hidden(cache, tmp_path, monkeypatch):
    monkeypatch.setattr(sealing.os, "geteuid", lambda: 0)        # the launcher's namespace: root's alone
    store = tmp_path / "elsewhere" / "runs.sqlite"
    hidden = sealing.sealed_paths(f"sqlite:{store}")
    assert str(cache / "oracle") in hidden and str(RESULTS_DIR) in hidden and str(RESULTS_DIR / "journal") in hidden
    assert {str(store.resolve()) + s for s in ("", "-wal", "-shm", "-journal")} <= set(hidden)
    assert not any("://" in p for p in sealing.sealed_paths("postgresql://u@h/db"))


def test_a_harness_that_is_not_root_hides_nothing_and_says_so_elsewhere(monkeypatch):
    monkeypatch.setattr(sealing.os, "geteuid", lambda: 1000)
    assert sealing.sealed_paths("sqlite:/x.sqlite") == ()


def test_a_sealed_call_gets_a_home_of_its_own_that_goes_with_it(cache):
    home = None
    with sealing.sealed_call() as seal:
        if seal["user"] is not None:
            home = Path(seal["env"]["HOME"])
            assert home.is_dir() and sealing.scratch_root() in home.parents
            assert seal["writable"] == (str(home.parent),)            # its scratch folder, nothing else
            assert "PGPASSWORD" not in seal["env"]
        else:
            assert set(seal) == {"user", "env", "hide"}
    assert home is None or not home.parent.exists()


def test_a_benchmark_process_writes_only_its_scratch_folder_which_holds_its_home_and_tmpdir(tmp_path):
    me = os.stat(tmp_path)
    user = bench_user.BenchUser("bench", me.st_uid, me.st_gid)        # take() gives the folder to it
    seal = sealing.sealed_process(user, tmp_path, ("/answers",))
    assert seal["writable"] == (str(tmp_path),) and seal["hide"] == ("/answers",) and seal["user"] == user
    assert Path(seal["env"]["HOME"]).parent == tmp_path and Path(seal["env"]["TMPDIR"]).parent == tmp_path


def test_without_a_benchmark_user_nothing_is_made_read_only(tmp_path):
    # --as-root or a harness that is not root: the process keeps root's capabilities (or is the
    # harness's own user), so the launcher is asked for no read-only machine it could not keep.
    seal = sealing.sealed_process(None, tmp_path, ("/answers",))
    assert seal == {"user": None, "env": None, "hide": ("/answers",)}


def test_a_build_under_root_writes_only_its_folder_the_registries_caches_and_a_tmpdir_that_goes_with_it(
        cache, tmp_path, monkeypatch):
    monkeypatch.setattr(sealing.os, "geteuid", lambda: 0)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GOMODCACHE", str(tmp_path / "mods"))
    monkeypatch.setenv("MAVEN_OPTS", f"-Xmx1g -Dmaven.repo.local={tmp_path / 'm2'}")
    monkeypatch.setenv("PGPASSWORD", "hunter2")
    folder = tmp_path / "impls" / "rt"
    folder.mkdir(parents=True)
    with sealing.sealed_build(folder) as seal:
        tmpdir = Path(seal["env"]["TMPDIR"])
        assert seal["writable"][0] == str(folder.resolve()) and tmpdir.parent == folder.resolve() and tmpdir.is_dir()
        assert {str(tmp_path / "home" / ".cargo"), str(tmp_path / "home" / ".m2"), str(tmp_path / "mods"),
                str(tmp_path / "m2")} <= set(seal["writable"])
        assert all(Path(p).is_dir() for p in seal["writable"][1:])            # made: HOME itself is read-only to it
        assert str(cache / "oracle") in seal["hide"] and str(RESULTS_DIR) in seal["hide"]
        assert "PGPASSWORD" not in seal["env"]
    assert not tmpdir.exists()


def test_a_build_may_read_no_password_file_nor_raw_disk(tmp_path, monkeypatch):
    passfile = tmp_path / "pgpass"
    passfile.write_text("*:*:*:*:secret")
    monkeypatch.setenv("PGPASSFILE", str(passfile))
    hidden = sealing.secrets_beside(("/answers",))
    assert hidden[0] == "/answers" and str(passfile) in hidden
    disks = {entry.path for entry in os.scandir("/dev") if stat.S_ISBLK(os.lstat(entry.path).st_mode)}
    assert disks <= set(hidden)


def test_a_build_by_a_harness_that_is_not_root_is_unsealed_without_the_harness_secrets(monkeypatch, tmp_path):
    monkeypatch.setattr(sealing.os, "geteuid", lambda: 1000)
    monkeypatch.setenv("PGPASSWORD", "hunter2")
    with sealing.sealed_build(tmp_path) as seal:
        assert set(seal) == {"env"} and "PGPASSWORD" not in seal["env"]
    assert not sealing.can_seal()
