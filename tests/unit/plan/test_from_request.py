"""plan/from_request.py: what the suite and sweep kinds derive from a Request: the runtimes
described (or a skip line saying why not), the start-up cases, the settings and the run record."""
import json
import os
from pathlib import Path

from unit_world import description

from parbench.measure.runner import Settings
from parbench.measure.runtimes import Model, Runtime
from parbench.plan import from_request
from parbench.plan.cases import SCALE_DEFAULTS, Plan, Request
from parbench.plan.from_request import (MEMORY_SHARE, default_memory_limit_kb, describe_runtimes, new_record,
                                        settings_for, startup_cases)
from parbench.records import Case


def runtime_in(folder: Path, name: str, list_script: str) -> Runtime:
    """A runtime whose `run` is this sh script (what `run --list` prints, or how it fails)."""
    folder.mkdir()
    run = folder / "run"
    run.write_text("#!/bin/sh\n" + list_script + "\n")
    run.chmod(0o755)           # run by the benchmark user as a benchmark is (sealing.py)
    return Runtime(name, name, folder, ["sh"], "true", "(tests)", [])


def test_an_installed_runtime_is_described_from_its_run_list(tmp_path):
    listing = {"runtime": "good", "version": "3", "workloads": {"toy": {"models": {"seq": {"family": "seq"}}}}}
    good = runtime_in(tmp_path / "good", "good", f"echo '{json.dumps(listing)}'")
    described, skipped = describe_runtimes({"good": good}, ["good"])
    assert skipped == [] and described["good"].version == "3" and set(described["good"].models_of("toy")) == {"seq"}


def test_a_runtime_whose_tools_are_missing_is_skipped_with_how_to_install_them(tmp_path):
    missing = Runtime("gone", "gone", tmp_path, ["no-such-tool-here"], "true", "apt install gone", [])
    described, skipped = describe_runtimes({"gone": missing}, ["gone"])
    assert described == {} and skipped == ["gone: skipped — no-such-tool-here not found; install with: apt install gone"]


def test_a_runtime_that_cannot_list_itself_is_skipped_with_how_to_build_it(tmp_path):
    broken = runtime_in(tmp_path / "broken", "broken", "echo oops >&2; exit 3")
    described, (line,) = describe_runtimes({"broken": broken}, ["broken"])
    assert described == {} and line.startswith("broken: skipped — not runnable (broken: `run --list` exited 3")
    assert line.endswith("build it with `parbench build --runtime broken`")


def test_only_the_wanted_runtimes_are_described_in_the_order_asked(tmp_path):
    runtimes = {name: Runtime(name, name, tmp_path, ["no-such-tool-here"], "true", "x", []) for name in "abc"}
    _, skipped = describe_runtimes(runtimes, ["c", "a"])
    assert [line.split(":")[0] for line in skipped] == ["c", "a"]


def test_each_planned_runtime_that_offers_noop_gets_one_start_up_case():
    plan = Plan([Case("toy", "fast", "seq", "seq", {}), Case("toy", "fast", "pool", "threads", {}, 2),
                 Case("toy", "slow", "seq", "seq", {}), Case("toy", "absent", "seq", "seq", {})], [])
    described = {"fast": description("fast", {}), "slow": description("slow", {})}
    described["fast"].workloads["noop"] = description("x", {"boot": Model("boot", "seq")}).workloads["toy"]
    assert startup_cases(plan, described) == [Case("noop", "fast", "boot", "seq", {})]


def test_settings_take_the_scales_defaults_where_the_request_says_nothing():
    s = settings_for(Request(scale="smoke", as_root=True))
    defaults = SCALE_DEFAULTS["smoke"]
    assert (s.processes, s.warmup, s.repeat, s.timeout) == (defaults["processes"], defaults["warmup"],
                                                            defaults["repeat"], defaults["timeout"])
    assert s.min_processes == min(defaults["min_processes"], defaults["processes"]) and s.user is None


def test_settings_take_what_the_request_asks_and_never_more_minimum_processes_than_processes():
    s = settings_for(Request(scale="quick", processes=1, warmup=4, repeat=7, timeout=2.5, order="sequential",
                             seed=11, as_root=True))
    assert (s.processes, s.warmup, s.repeat, s.timeout, s.order, s.seed) == (1, 4, 7, 2.5, "sequential", 11)
    assert s.min_processes == 1


def test_a_memory_limit_of_zero_means_none_and_none_means_the_default_share():
    assert settings_for(Request(memory_limit_kb=0, as_root=True)).memory_limit_kb is None
    assert settings_for(Request(memory_limit_kb=2048, as_root=True)).memory_limit_kb == 2048
    assert settings_for(Request(as_root=True)).memory_limit_kb == default_memory_limit_kb()


def test_the_default_limit_is_the_share_of_this_machines_memory():
    total_kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                    if line.startswith("MemTotal"))
    assert default_memory_limit_kb() == int(total_kb * MEMORY_SHARE)


def test_without_proc_meminfo_there_is_no_default_limit(monkeypatch, tmp_path):
    monkeypatch.setattr(from_request, "Path", lambda _: tmp_path / "no-meminfo")
    assert default_memory_limit_kb() is None


def test_a_new_record_carries_the_request_the_machine_who_ran_it_and_each_runtimes_info():
    request = Request(scale="smoke", workloads=("toy",), seed=5)
    record = new_record(request, {"fast": description("fast", {})}, "sweep", Settings(1, 0, 1, 10))
    assert (record.id, record.kind, record.scale, record.status) == (None, "sweep", "smoke", "running")
    assert record.options["workloads"] == ("toy",) and record.options["seed"] == 5
    assert record.runtimes == {"fast": {"version": "1", "flags": "", "sources": {}}}
    assert f"uid {os.geteuid()}" in record.machine["benchmark_user"] and "logical_cpus" in record.machine
