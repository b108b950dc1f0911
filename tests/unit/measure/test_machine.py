"""machine.py: the machine and software a run was measured on, as this machine reports them."""
import os
import re
import subprocess
from pathlib import Path

from parbench import __version__
from parbench.measure import machine


def test_the_machine_record_holds_what_this_machine_reports():
    found = machine.machine()
    assert found["logical_cpus"] == os.cpu_count()
    assert 1 <= found["usable_cpus"] == len(os.sched_getaffinity(0)) <= found["logical_cpus"]
    assert found["parbench"] == __version__ and len(found["load_average"]) == 3
    assert found["memory_gib"] > 0 and found["os_kernel"] == os.uname().release
    assert found["aslr"] == Path("/proc/sys/kernel/randomize_va_space").read_text().strip()


def test_the_cpu_is_the_first_model_name_of_cpuinfo():
    names = [line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
             if line.startswith("model name")]
    assert machine.machine()["cpu"] == (names[0] if names else machine.machine()["cpu"])
    assert machine.machine()["cpu"]


def test_the_os_is_its_pretty_name_without_quotes():
    pretty = next(line for line in Path("/etc/os-release").read_text().splitlines() if line.startswith("PRETTY_NAME="))
    assert machine.machine()["os"] == pretty.split("=", 1)[1].strip('"')


def test_a_file_that_cannot_be_read_reads_as_empty(tmp_path):
    assert machine._read(str(tmp_path / "missing")) == ""
    (tmp_path / "f").write_text("  performance \n")
    assert machine._read(str(tmp_path / "f")) == "performance"


def test_the_commit_is_a_short_hash_of_the_checkout_marked_when_dirty():
    commit = machine.git_commit()
    assert re.fullmatch(r"[0-9a-f]{7,40}(-dirty)?", commit), commit
    exists = subprocess.run(["git", "-C", str(machine.ROOT), "cat-file", "-e", commit.removesuffix("-dirty")])
    assert exists.returncode == 0


def test_outside_a_git_checkout_the_commit_is_unknown(tmp_path, monkeypatch):
    monkeypatch.setattr(machine, "ROOT", tmp_path)
    assert machine.git_commit() == "unknown"
