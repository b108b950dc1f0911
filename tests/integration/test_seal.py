"""The seal holds against code written to get out of it (docs/reliability.md, "Sealed answers"):
each of tests/fixtures/sneaky's models tries one way out and crashes if it finds it, so every
case below that is `ok` is a way that stayed shut, beside the model that breaks protocol 4's
"one line, one variant" and the one that forges the harness's fields."""
import json
import os
import subprocess
import sys

import pytest

from conftest import FIXTURES, REPO, fresh_postgres_schema, parbench, require


@pytest.fixture(scope="module")
def sneaky_root(tmp_path_factory):
    require(os.geteuid() == 0, "sealing needs root (a mount namespace, the benchmark user): run the tests as root")
    root = tmp_path_factory.mktemp("sneaky") / "project"
    (root / "impls").mkdir(parents=True)
    (root / "workloads").symlink_to(REPO / "workloads")
    (root / "impls" / "sneaky").symlink_to(FIXTURES / "sneaky")
    return root


@pytest.fixture(scope="module")
def sealed_run(sneaky_root):
    """Every model, two processes each, on a store with its password on the command line."""
    db = fresh_postgres_schema("seal_test")
    assert ":parbench@" in db                  # the password the title-reader looks for
    _sneaky("--forget-memos")                  # what a run of an unsealed parbench may have left
    done = parbench("run", "--workload", "spawn-chain", "--runtime", "sneaky", "--scale", "smoke", "--processes", "2",
                    "--param", "n=50", "--db", db, "--export-json", "-", root=sneaky_root, timeout=300)
    assert "Traceback" not in done.stdout + done.stderr, done.stderr
    document = json.loads(done.stdout[done.stdout.index("{"):done.stdout.rindex("}") + 1])
    cases = {r["case"]["model"]: r for r in document["results"] + document.get("failures", [])}
    return cases


def _sneaky(*args: str) -> str:
    return subprocess.run([sys.executable, str(FIXTURES / "sneaky" / "run"), *args], capture_output=True, text=True,
                          check=True).stdout


@pytest.fixture(scope="module")
def left_on_the_machine(sealed_run):
    """The memos the machine holds after the run, seen from outside every seal."""
    return json.loads(_sneaky("--find-memos"))


def _outcome(cases, model):
    case = cases[model]
    return case["status"], case.get("reason", ""), case["processes"]


def test_the_honest_model_passes(sealed_run):
    assert _outcome(sealed_run, "honest")[0] == "ok"


def test_blank_lines_earn_no_variant_and_fail_the_case_quoting_the_line(sealed_run):
    status, reason, _ = _outcome(sealed_run, "blank-lines")
    assert status == "bad-output"
    assert "stdout line 2 is not JSON" in reason and "no further variant was written" in reason


def test_no_file_handle_opens_a_way_round_the_hidden_folders(sealed_run):
    status, reason, processes = _outcome(sealed_run, "handles")
    assert status == "ok", reason            # the model exits 1 on any handle it is given


def test_a_memo_kept_anywhere_by_one_process_is_found_by_no_later_one(sealed_run):
    status, reason, processes = _outcome(sealed_run, "memo")
    assert status == "ok", reason
    assert len([p for p in processes if p["index"] >= 0]) == 2        # the second looked too
    samples = [s for p in processes for s in p["samples"]]
    assert samples and all(s["extra"]["memo_found"] == [] for s in samples)


def test_the_shared_folders_and_keyring_refuse_the_memo_and_the_rest_keep_it_in_the_process_own(sealed_run, left_on_the_machine):
    _, _, processes = _outcome(sealed_run, "memo")
    for kept in (s["extra"]["memo_kept"] for p in processes for s in p["samples"]):
        assert {kept[folder] for folder in ("/run/lock", "/tmp", "/var/tmp")} == {"refused (EROFS)"}
        assert kept["keyring"] == "refused (EPERM)"                   # a user's keyring outlives its processes
        assert {kept[store] for store in ("/dev/shm", "TMPDIR", "sysv-shm", "posix-mqueue")} == {"kept"}
    assert left_on_the_machine == []           # its /dev/shm, scratch folder and IPC namespace went with it


def test_the_store_password_is_neither_in_the_harness_title_nor_its_environment(sealed_run):
    status, reason, _ = _outcome(sealed_run, "title-reader")
    assert status == "ok", reason


def test_fields_the_harness_owns_are_dropped_from_a_line_with_a_note(sealed_run):
    status, _, processes = _outcome(sealed_run, "forger")
    assert status == "ok"
    timed = [p for p in processes if p["index"] >= 0]
    assert all("set the harness's own field(s) gap_ns, measured_cores, others_cores: dropped" in p["detail"]
               for p in timed)
    samples = [s for p in timed for s in p["samples"]]
    assert all(s["extra"].get("gap_ns", 0) > 1 for s in samples)            # the launcher's, not the forged 1
    assert all(s["extra"].get("measured_cores") != 2.0 for s in samples)
