"""A runtime's build and its own tests are sealed as its benchmark is (docs/reliability.md,
"Sealed answers"): tests/fixtures/leaky_build's build and tests try to read the oracle's cache and
the stores (straight, by unmounting what hides them, through another process's /proc/PID/root,
off the raw disk), to rewrite the harness, and to leave what they read in /tmp, /var/tmp,
/dev/shm and their TMPDIR; its benchmark then looks everywhere they could have left it."""
import glob
import json
import os
import secrets
import sqlite3
import subprocess
import sys

import pytest

from conftest import FIXTURES, REPO, parbench, require
from parbench.measure import runtimes as runtimes_module
from parbench.project import cache_root

LEFT_WHERE_A_BENCHMARK_LOOKS = ("/tmp/leaky-memo-*", "/var/tmp/leaky-memo-*", "/dev/shm/leaky-memo-*")

# A root process without a capability, in the harness's own mount namespace, where nothing is
# hidden: a build holds no more capabilities than it, so only Landlock keeps the build out of its
# /proc/PID/root (another parbench's sealed call is such a process).
POWERLESS_ROOT_PROCESS = """
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
for cap in range(64):
    libc.prctl(24, cap, 0, 0, 0)                                   # PR_CAPBSET_DROP
header, data = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()   # version 3, no capability
assert libc.syscall({"x86_64": 126, "aarch64": 91}[os.uname().machine], header, data) == 0   # capset
print("powerless", flush=True)
time.sleep(600)
"""


@pytest.fixture(scope="module")
def leaky(tmp_path_factory):
    """A project holding the fixture runtime (its own folder real, so that its build may write it),
    a secret in the oracle's cache and one in a store of its results/, and the file a build would
    write into the harness's code."""
    require(os.geteuid() == 0, "sealing needs root (a mount namespace, the benchmark user): run the tests as root")
    root = tmp_path_factory.mktemp("leaky") / "project"
    folder = root / "impls" / "leaky_build"
    folder.mkdir(parents=True)
    for name in ("runtime.toml", "build", "test", "probe", "run"):
        (folder / name).symlink_to(FIXTURES / "leaky_build" / name)
    (root / "workloads").symlink_to(REPO / "workloads")
    token = secrets.token_hex(16)
    oracle = cache_root().parent / "oracle"
    oracle.mkdir(parents=True, exist_ok=True)
    oracle_secret = oracle / f"leaky-{token}.json"
    oracle_secret.write_text(json.dumps({"expected": token}))
    (root / "results").mkdir()
    store = root / "results" / "parbench.sqlite"
    sqlite3.connect(store).execute("CREATE TABLE answers (checksum TEXT)").connection.execute(
        "INSERT INTO answers VALUES (?)", (token,)).connection.commit()
    harness_file = REPO / "src" / "parbench" / f"leaky-{token}.py"
    powerless = subprocess.Popen([sys.executable, "-c", POWERLESS_ROOT_PROCESS], stdout=subprocess.PIPE, text=True)
    assert powerless.stdout.readline() == "powerless\n"
    env = {"LEAKY_TOKEN": token, "LEAKY_SECRETS": f"{oracle_secret}:{store}", "LEAKY_HARNESS_FILE": str(harness_file)}
    yield {"root": root, "folder": folder, "env": env, "harness_file": harness_file, "oracle_secret": oracle_secret}
    powerless.kill()
    powerless.wait()
    oracle_secret.unlink()
    harness_file.unlink(missing_ok=True)
    for path in (p for pattern in LEFT_WHERE_A_BENCHMARK_LOOKS for p in glob.glob(pattern)):
        os.unlink(path)


@pytest.fixture(scope="module")
def built(leaky):
    """`parbench build` of the fixture runtime, and what its build managed (found-build.json)."""
    done = parbench("build", "--runtime", "leaky_build", root=leaky["root"], env=leaky["env"], timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    return json.loads((leaky["folder"] / "found-build.json").read_text())


def _sealed(found: dict, harness_file) -> None:
    assert found["read"] == [] and found["loot"] == "", found
    assert found["unmounted"] == [], found
    assert found["proc_root"] == [], found
    assert found["raw_disk"] == [], found
    assert not found["wrote_harness"] and not harness_file.exists()
    # /tmp and /var/tmp are read-only to it; /dev/shm and its TMPDIR took the memo, and went with it.
    assert sorted(found["memos"]) == sorted(["/dev/shm/leaky-memo-" + found["label"],
                                             os.path.join(found["tmpdir"], "leaky-memo-" + found["label"])])
    assert not os.path.exists(found["tmpdir"])
    assert [p for pattern in LEFT_WHERE_A_BENCHMARK_LOOKS for p in glob.glob(pattern)] == []


def test_a_build_reads_no_secret_and_leaves_nothing_outside_its_folder(built, leaky):
    _sealed(built, leaky["harness_file"])


def test_a_runtimes_own_tests_are_sealed_as_its_build(leaky, monkeypatch):
    """In this process, whose results/ is the checkout's (the project's store is not this
    harness's): the oracle's secret only."""
    for name, value in {**leaky["env"], "LEAKY_SECRETS": str(leaky["oracle_secret"])}.items():
        monkeypatch.setenv(name, value)
    runtime = runtimes_module.Runtime("leaky_build", "leaky_build", leaky["folder"], ["python3"], "true", "", [])
    done = runtime.test(timeout=120)
    assert done.returncode == 0, done.stderr
    _sealed(json.loads((leaky["folder"] / "found-test.json").read_text()), leaky["harness_file"])


def test_its_benchmark_finds_nothing_its_build_left(built, leaky, tmp_path):
    done = parbench("run", "--workload", "spawn-chain", "--runtime", "leaky_build", "--scale", "smoke",
                    "--processes", "1", "--param", "n=50", "--db", str(tmp_path / "run.sqlite"), "--export-json", "-",
                    root=leaky["root"], timeout=300)
    document = json.loads(done.stdout[done.stdout.index("{"):done.stdout.rindex("}") + 1])
    cases = document["results"] + document.get("failures", [])
    assert [(c["case"]["model"], c["status"]) for c in cases] == [("finder", "ok")], \
        [c.get("reason") for c in cases]


def test_a_sealed_build_may_move_a_file_from_one_of_its_folders_to_another(tmp_path):
    """rustc writes each .rmeta in a folder of its own and renames it into deps/: under a Landlock
    ruleset that does not handle "refer", every such rename is EXDEV, and a fresh Rust build failed."""
    require(os.geteuid() == 0, "sealing needs root (a mount namespace): run the tests as root")
    from parbench.measure.process import run_measured
    from parbench.measure.sealing import sealed_build
    folder = tmp_path / "impls" / "mover"
    folder.mkdir(parents=True)
    with sealed_build(folder) as seal:
        done = run_measured(["sh", "-c", "mkdir -p a/b && echo x > a/b/f && mv a/b/f a/g && ln a/g h && cat h"],
                            60, cwd=str(folder), protocol=False, **seal)
    assert done.exit_code == 0 and done.stdout_head.strip() == "x", done.stderr
