"""PARBENCH_SDES_TECHNIQUE forces one tuned S-DES technique in every runtime that has several, so
that one harness run can measure the AVX2 paths on an AVX-512 machine (issue 61): the forced path
runs (its label leads kernel_detail) and gives the portable kernel's ciphertext, and a label that
is not the cipher's is exit 2 with one line naming the variable, never another path quietly."""
from __future__ import annotations

import json
import os
import subprocess

import pytest

from conftest import REPO, require_runtime
from parbench.measure import runtimes as runtimes_module

# The path every x86-64 machine of the last decade has, by each runtime's label for it.
AVX2 = {"rust": "avx2", "go": "avx2", "cpp": "avx2"}


def _cpu_has_avx2() -> bool:
    with open("/proc/cpuinfo") as cpuinfo:
        return " avx2 " in f" {cpuinfo.read()} "


def _one_repetition(runtime: str, input_file, cipher: str, kernel: str, technique: str | None):
    env = {k: v for k, v in os.environ.items() if k != "PARBENCH_SDES_TECHNIQUE"}
    if technique is not None:
        env["PARBENCH_SDES_TECHNIQUE"] = technique
    return subprocess.run([str(REPO / "impls" / runtime / "run"), "sdes-ecb", "--model", "seq", "--input", str(input_file),
                           "--key", "642", "--cipher", cipher, "--kernel", kernel],
                          input="642\n", capture_output=True, text=True, env=env, timeout=120)


def _last_line(done) -> dict:
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def input_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("sdes") / "random.bin"
    path.write_bytes(os.urandom(200_003))   # odd: every kernel's tail runs
    return path


@pytest.mark.parametrize("runtime", sorted(AVX2))
@pytest.mark.parametrize("cipher", ["bitwise", "table"])
def test_a_forced_avx2_path_runs_and_gives_the_portable_ciphertext(runtime, cipher, input_file):
    require_runtime(runtimes_module.load_all()[runtime])
    if not _cpu_has_avx2():
        pytest.skip("this CPU lacks AVX2")
    portable = _last_line(_one_repetition(runtime, input_file, cipher, "portable", None))
    forced = _last_line(_one_repetition(runtime, input_file, cipher, "tuned", AVX2[runtime]))
    assert forced["checksum"] == portable["checksum"]
    assert forced["extra"]["kernel_detail"].lower().startswith("avx2"), forced["extra"]["kernel_detail"]


@pytest.mark.parametrize("runtime", sorted(AVX2))
def test_a_label_that_is_not_a_technique_is_exit_2_naming_it(runtime, input_file):
    require_runtime(runtimes_module.load_all()[runtime])
    done = _one_repetition(runtime, input_file, "bitwise", "tuned", "no-such-technique")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "no-such-technique" in done.stderr and not done.stdout.strip().endswith("}")
