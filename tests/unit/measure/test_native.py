"""native.py: the harness's own C programs, compiled once into the cache and rebuilt when the
source is newer; None where no compiler is found or the source does not build."""
import os
import subprocess

import pytest

from parbench.measure.native import compiled

PROGRAM = '#include <stdio.h>\nint main(void) { puts("%s"); return 0; }\n'


@pytest.fixture
def cache(monkeypatch, tmp_path):
    monkeypatch.setenv("PARBENCH_CACHE", str(tmp_path / "cache" / "inputs"))
    return tmp_path / "cache" / "bin"


def source(tmp_path, text: str, name: str = "prog.c"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_source_is_compiled_into_the_cache_beside_the_inputs(tmp_path, cache):
    binary = compiled(source(tmp_path, PROGRAM % "first"), "unit-first")
    assert binary == str(cache / "unit-first")
    assert subprocess.run([binary], capture_output=True, text=True).stdout == "first\n"


def test_a_binary_newer_than_its_source_is_used_as_it_is(tmp_path, cache):
    program = source(tmp_path, PROGRAM % "kept")
    cache.mkdir(parents=True)
    (cache / "unit-kept").write_text("not rebuilt")
    assert compiled(program, "unit-kept") == str(cache / "unit-kept")
    assert (cache / "unit-kept").read_text() == "not rebuilt"


def test_a_source_newer_than_its_binary_is_rebuilt(tmp_path, cache):
    program = source(tmp_path, PROGRAM % "new")
    cache.mkdir(parents=True)
    (cache / "unit-stale").write_text("stale")
    os.utime(cache / "unit-stale", (1, 1))
    binary = compiled(program, "unit-stale")
    assert subprocess.run([binary], capture_output=True, text=True).stdout == "new\n"


def test_flags_reach_the_compiler(tmp_path, cache):
    program = source(tmp_path, '#include <stdio.h>\nint main(void) { printf("%d\\n", VALUE); }\n', "flags.c")
    binary = compiled(program, "unit-flags", ("-DVALUE=42",))
    assert subprocess.run([binary], capture_output=True, text=True).stdout == "42\n"


def test_a_source_that_does_not_build_gives_none_and_leaves_nothing(tmp_path, cache):
    assert compiled(source(tmp_path, "int main(void) { return }", "broken.c"), "unit-broken") is None
    assert not (cache / "unit-broken").exists()


def test_without_a_compiler_there_is_no_binary(tmp_path, cache, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert compiled(source(tmp_path, PROGRAM % "x", "nocc.c"), "unit-nocc") is None
