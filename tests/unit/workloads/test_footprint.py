"""workloads/footprint.py: a case whose input or oracle cannot fit on this machine is refused with
the figure before anything is built."""
import shutil
from types import SimpleNamespace

import pytest
from unit_world import TOY_MODULE

from parbench.units import format_bytes
from parbench.workloads import Workload, footprint

TiB = 1 << 40


def _workload(needs=None) -> Workload:
    module = SimpleNamespace(**vars(TOY_MODULE), **({"footprint": needs} if needs else {}))
    return Workload("toy", "a toy", "(tests)", "terms", {}, {}, module)


@pytest.fixture(autouse=True)
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PARBENCH_CACHE", str(tmp_path / "inputs"))
    return tmp_path / "inputs"


def test_a_workload_that_says_nothing_of_its_footprint_is_never_refused():
    assert footprint.problem(_workload(), {"n": 10 ** 9}) is None


def test_a_case_that_fits_is_not_refused():
    assert footprint.problem(_workload(lambda params: (1024, 1024)), {"n": 1}) is None


def test_an_input_larger_than_the_free_disk_is_refused_with_both_figures(cache):
    why = footprint.problem(_workload(lambda params: (1000 * TiB, 0)), {"n": 5, "m": "x"})
    assert why.startswith(f"toy n=5 m=x: its input needs {format_bytes(1000 * TiB)} of disk, ")
    assert f"{cache} has " in why and why.endswith(" free")


def test_an_oracle_larger_than_the_available_memory_is_refused_with_both_figures():
    why = footprint.problem(_workload(lambda params: (0, 1000 * TiB)), {"n": 5})
    assert why.startswith(f"toy n=5: its reference answer needs {format_bytes(1000 * TiB)} of memory, this machine has ")
    assert why.endswith(" available")


def test_what_is_already_cached_needs_nothing():
    assert footprint.problem(_workload(lambda params: (0, 0)), {"n": 5}) is None


def test_free_disk_is_read_from_the_nearest_folder_that_exists(tmp_path):
    free = footprint.free_disk_bytes(tmp_path / "not" / "yet" / "made")
    assert abs(free - shutil.disk_usage(tmp_path).free) < 64 * (1 << 20)


def test_available_memory_is_memavailable_of_proc_meminfo():
    line = next(l for l in open("/proc/meminfo") if l.startswith("MemAvailable:"))
    expected = int(line.split()[1]) * 1024
    assert abs(footprint.available_memory_bytes() - expected) < 256 * (1 << 20)


def test_cached_says_whether_the_path_exists(tmp_path):
    assert not footprint.cached(tmp_path / "x")
    (tmp_path / "x").write_text("")
    assert footprint.cached(tmp_path / "x")
