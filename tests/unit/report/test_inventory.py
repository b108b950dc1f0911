"""report/inventory.py: what `parbench doctor` and `parbench list` print — each runtime ready, not
built or missing (with its install line), the tools beside them, every model and kernel class."""
import io
from pathlib import Path

import pytest
from rich.console import Console
from unit_world import toy_workload

from parbench.measure.runtimes import Description, Model, Offer, Runtime
from parbench.report.inventory import print_doctor, print_listing, start_modes


def _printed(draw) -> str:
    out = io.StringIO()
    draw(Console(file=out, width=300, color_system=None))
    return out.getvalue()


def _runtime(name: str, folder: Path, requires=("sh",), reason: str = "") -> Runtime:
    return Runtime(name, name, folder, list(requires), "echo v1.2; echo second line", f"apt-get install -y {name}",
                   [], unavailable_reason=reason)


def _row(text: str, name: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(f"│ {name} "))


@pytest.fixture(scope="module")
def doctor(tmp_path_factory) -> str:
    """One `doctor` over four runtimes (it looks for Dask beside them: once for the module)."""
    built, raw = tmp_path_factory.mktemp("built"), tmp_path_factory.mktemp("raw")
    run = built / "run"
    run.write_text("#!/bin/sh\necho '{\"workloads\": {}}'\n")
    run.chmod(0o755)
    runtimes = {"built": _runtime("built", built), "raw": _runtime("raw", raw),
                "ghost": _runtime("ghost", raw, requires=("ghost-vm-that-is-not-installed",)),
                "off": _runtime("off", raw, reason="no JIT on this architecture")}
    return _printed(lambda c: print_doctor(runtimes, c))


def test_a_runtime_whose_run_list_answers_is_ready_with_its_versions_first_line(doctor):
    row = _row(doctor, "built")
    assert "ready" in row and "v1.2" in row and "second line" not in row


def test_a_runtime_whose_tools_are_there_but_not_its_build_says_how_to_build_it(doctor):
    row = _row(doctor, "raw")
    assert "not built (parbench build --runtime raw)" in row and "apt-get install -y raw" in row


def test_a_runtime_without_its_tools_is_missing_with_the_install_line(doctor):
    row = _row(doctor, "ghost")
    assert "missing" in row and "ghost-vm-that-is-not-installed not found; install with: apt-get install -y ghost" in row


def test_a_runtime_declared_unavailable_shows_its_reason(doctor):
    row = _row(doctor, "off")
    assert "missing" in row and "no JIT on this architecture" in row and "–" in row


def test_doctor_names_every_tool_beside_the_runtimes_found_or_missing(doctor):
    for tool in ("sqlite3:", "psql:", "chromium:", "hyperfine:", "Dask distributed", "Erlang distribution"):
        assert any(line.startswith(("found  ", "missing")) and tool in line for line in doctor.splitlines()), tool


def test_start_modes_lists_what_each_mode_makes_then_why_the_others_cannot_apply():
    model = Model("pool", "threads", starts={"cold": "a fresh pool", "warm": "the pool of the last run"},
                  start_unavailable={"shared": "no shared pool here"})
    assert start_modes(model) == "cold: a fresh pool\nwarm: the pool of the last run\nno shared: no shared pool here"
    assert start_modes(Model("seq", "seq")) == ""


def test_the_listing_shows_each_workloads_scales_and_every_models_family_and_kernel():
    offer = Offer((), {"seq": Model("seq", "seq"), "pool": Model("pool", "threads", True, note="a fixed pool")},
                  {"tuned": "SIMD lanes"})
    text = _printed(lambda c: print_listing({"toy": toy_workload()}, {"fast": Description("fast", "1", "", {},
                                                                                         {"toy": offer})},
                                            ["slow: not built, left out"], c))
    assert "toy — a toy" in text and "smoke: n=10; quick: n=[100, 1000]; seed: n=1000000" in text
    pool = _row(text, "fast").replace(" ", "")
    assert "│fast│toy│seq│seq│" in pool
    rows = [line.replace(" ", "") for line in text.splitlines()]
    assert "│fast│toy│pool│threads│yes││afixedpool│" in rows
    assert "│fast│toy│tuned│SIMDlanes│" in rows
    assert text.rstrip().endswith("slow: not built, left out")
