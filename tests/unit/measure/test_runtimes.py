"""runtimes.py: a runtime's `run --list` read into records (and refused where it is wrong), its
runtime.toml, what it lacks to run, and its own scripts run under the launcher."""
import dataclasses
import json

import pytest

from parbench.measure import runtimes
from parbench.measure.runtimes import Model, Offer, Runtime, on_path, parse_description

LISTING = {
    "runtime": "toy", "version": "1.2", "flags": "-O2", "sources": {"sdes": "src/sdes.rs"},
    "workloads": {"sdes": {"params": ["block-size"], "kernels": {"portable": "scalar"},
                           "models": {"seq": {"family": "seq"},
                                      "pool": {"family": "threads", "workers": True, "note": "a pool",
                                               "flags": "-pthread", "start": {"cold": "threads per rep",
                                                                             "warm": "one pool"}},
                                      "only-warm": {"family": "actors", "start": {"warm": "a system"},
                                                    "start_unavailable": {"cold": "no"}}}},
                  "empty": None},
}


def with_model(info) -> dict:
    return {"workloads": {"w": {"models": {"m": info}}}}


# --- run --list --------------------------------------------------------------------------------------
def test_a_listing_becomes_a_description_of_offers_and_models():
    described = parse_description(LISTING, "toy")
    assert (described.runtime, described.version, described.flags) == ("toy", "1.2", "-O2")
    assert described.info == {"version": "1.2", "flags": "-O2", "sources": {"sdes": "src/sdes.rs"}}
    offer = described.workloads["sdes"]
    assert offer.params == ("block-size",) and offer.param_names == {"block_size"}
    assert offer.kernels == {"portable": "scalar"}
    assert offer.models["pool"] == Model("pool", "threads", True, "a pool", "-pthread",
                                         {"cold": "threads per rep", "warm": "one pool"}, {})
    assert offer.models["seq"] == Model("seq", "seq")
    assert described.workloads["empty"] == Offer((), {}, {})


def test_a_listing_without_a_runtime_name_takes_the_folder_s():
    assert parse_description({"workloads": {}}, "folder").runtime == "folder"


def test_the_models_of_a_workload_not_offered_are_none():
    described = parse_description(LISTING, "toy")
    assert set(described.models_of("sdes")) == {"seq", "pool", "only-warm"}
    assert described.models_of("keygen") == {}


def test_a_model_starts_cold_where_offered_else_in_its_only_mode():
    models = parse_description(LISTING, "toy").workloads["sdes"].models
    assert models["pool"].default_start == "cold"
    assert models["only-warm"].default_start == "warm"
    assert models["only-warm"].start_unavailable == {"cold": "no"}
    assert models["seq"].default_start is None


@pytest.mark.parametrize("listing, message", [
    ([], "must be an object with a `workloads` object"),
    ({"workloads": []}, "must be an object with a `workloads` object"),
    ({"workloads": {"w": "x"}}, "toy: workload w must be an object, not str"),
    ({"workloads": {"w": {"models": ["seq"]}}}, "toy: w's models must be an object, not list"),
    (with_model("seq"), "toy: w model m must be an object, not str"),
    (with_model({"family": "coroutines"}), "w model m has family 'coroutines'; valid: seq, threads"),
    (with_model({}), "w model m has family '\\?'"),
    (with_model({"family": "seq", "start": {"hot": "x"}}), "names start mode 'hot'; valid: cold, warm"),
    (with_model({"family": "seq", "start_unavailable": {"lukewarm": "x"}}), "names start mode 'lukewarm'"),
    (with_model({"family": "seq", "start": ["cold"]}), "m's start must be an object"),
    ({"workloads": {"w": {"kernels": ["a"]}}}, "w's kernels must be an object"),
    ({"workloads": {"w": {"params": "n"}}}, "w's params must be a list of names"),
    ({"workloads": {"w": {"params": ["n", 3]}}}, "w's params must be a list of names"),
    ({"workloads": {}, "sources": "x"}, "toy: sources must be an object"),
])
def test_a_listing_that_is_wrong_is_refused_naming_what_is_wrong(listing, message):
    with pytest.raises(ValueError, match=message):
        parse_description(listing, "toy")


@pytest.mark.parametrize("name", ["se\x1bq", "seq\n", "a\u2028b", "x\x9by", "x\u202egnp.exe", "se\u200bq"])
def test_a_model_name_with_a_control_or_invisible_character_is_refused(name):
    with pytest.raises(ValueError, match="has a control or invisible character in its name"):
        parse_description({"workloads": {"w": {"models": {name: {"family": "seq"}}}}}, "toy")


# --- what a runtime needs -----------------------------------------------------------------------------
def toy(tmp_path, **fields) -> Runtime:
    return Runtime(**{"name": "toy", "title": "Toy", "folder": tmp_path, "requires": ["sh"],
                      "version_command": "echo toy 1.0", "install": "apt-get install -y toy", "apt": [], **fields})


def test_a_runtime_whose_tools_are_all_found_is_available(tmp_path):
    runtime = toy(tmp_path)
    assert runtime.available and runtime.missing_tools() == [] and runtime.why_unavailable() == ""
    assert runtime.run_script == tmp_path / "run"


def test_a_missing_tool_makes_a_runtime_unavailable_and_says_how_to_install_it(tmp_path):
    runtime = toy(tmp_path, requires=["sh", "no-such-tool-parbench", str(tmp_path / "vm.image")])
    assert not runtime.available
    assert runtime.why_unavailable() == (f"no-such-tool-parbench, {tmp_path / 'vm.image'} not found; "
                                         "install with: apt-get install -y toy")
    (tmp_path / "vm.image").write_text("")
    assert runtime.missing_tools() == ["no-such-tool-parbench"]


def test_a_runtime_marked_unavailable_says_so_whatever_it_finds(tmp_path):
    runtime = toy(tmp_path, unavailable_reason="needs a display")
    assert not runtime.available and runtime.why_unavailable() == "needs a display"


def test_a_tool_is_found_on_path_or_as_an_absolute_path(tmp_path):
    assert on_path("sh") and not on_path("no-such-tool-parbench")
    assert not on_path(str(tmp_path / "java"))
    (tmp_path / "java").write_text("")
    assert on_path(str(tmp_path / "java"))


# --- its scripts, run under the launcher ----------------------------------------------------------
def script(folder, name: str, body: str) -> None:
    path = folder / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)          # run by the benchmark user as a benchmark is (sealing.py)


def test_the_version_is_the_first_line_its_command_prints_in_its_folder(tmp_path):
    assert toy(tmp_path, version_command="pwd; echo second").version() == str(tmp_path)
    assert toy(tmp_path, version_command="echo on stderr >&2").version() == "on stderr"
    assert toy(tmp_path, version_command="true").version() == "unknown"


def test_a_build_reports_its_exit_code_and_output(tmp_path):
    script(tmp_path, "build", "echo building; echo warn >&2; exit 4")
    built = toy(tmp_path).build()
    assert (built.returncode, built.stdout, built.stderr) == (4, "building\n", "warn\n")


def test_a_build_past_its_timeout_exits_124_and_one_killed_by_a_signal_128_plus_it(tmp_path):
    script(tmp_path, "build", "sleep 5")
    assert toy(tmp_path).build(timeout=0.2).returncode == 124
    script(tmp_path, "build", "kill -KILL $$")
    assert toy(tmp_path).build().returncode == 128 + 9


def test_run_list_is_read_as_the_description(tmp_path):
    script(tmp_path, "run", f"[ \"$1\" = --list ] && echo '{json.dumps(LISTING)}'")
    runtime = toy(tmp_path)
    assert runtime.describe() == LISTING
    assert runtime.description().models_of("sdes")["pool"].workers


@pytest.mark.parametrize("body, message", [
    ("echo oops >&2; exit 2", "toy: `run --list` exited 2: oops"),
    ("echo not json", "toy: `run --list` printed no readable JSON \\(not JSON"),
    ("echo '{\"v\": NaN}'", "printed no readable JSON \\(NaN is not a number"),
    ("sleep 5", "toy: `run --list` took over 0.2 s"),
])
def test_a_run_list_that_fails_says_how(tmp_path, body, message):
    script(tmp_path, "run", body)
    with pytest.raises(RuntimeError, match=message):
        toy(tmp_path).describe(timeout=0.2 if "sleep" in body else 10)


def test_run_list_may_nest_deeper_than_a_protocol_line_but_not_without_bound(tmp_path):
    deep = {"workloads": {"w": {"models": {"m": {"family": "seq", "x": {"y": {}}}}}}}     # 7 levels
    script(tmp_path, "run", f"echo '{json.dumps(deep)}'")
    assert toy(tmp_path).describe() == deep
    script(tmp_path, "run", "echo '" + "[" * 9 + "]" * 9 + "'")
    with pytest.raises(RuntimeError, match="nested deeper than 8 levels"):
        toy(tmp_path).describe()


# --- runtime.toml ---------------------------------------------------------------------------------
def test_every_runtime_toml_becomes_a_runtime_with_its_defaults(tmp_path, monkeypatch):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "runtime.toml").write_text(
        'name = "full"\ntitle = "Full"\nrequires = ["sh"]\nversion = "sh --version"\ninstall = "apt x"\n'
        'apt = ["x"]\nunavailable = "not here"\n\n[[scale_override]]\nscale = "quick"\nset = {n = 5}\n')
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "runtime.toml").write_text('name = "bare"\n')
    (tmp_path / "no-toml").mkdir()
    monkeypatch.setattr(runtimes, "IMPLS_DIR", tmp_path)
    loaded = runtimes.load_all()
    assert list(loaded) == ["bare", "full"]
    assert loaded["bare"] == Runtime("bare", "bare", tmp_path / "bare", [], "true", "", [], [], "")
    assert loaded["full"] == Runtime("full", "Full", tmp_path / "full", ["sh"], "sh --version", "apt x", ["x"],
                                     [{"scale": "quick", "set": {"n": 5}}], "not here")


def test_a_model_the_runtime_marks_runs_one_repetition_a_process_only_where_its_rule_matches(tmp_path):
    runtime = toy(tmp_path)
    rules = [{"workload": "batch-job", "models": ["thread"], "when": {"start": "cold"}, "why": "a thread cache"}]
    marked = dataclasses.replace(runtime, one_repetitions=rules)
    assert marked.one_repetition("batch-job", "thread", {"start": "cold", "docs": 3}) == "a thread cache"
    assert marked.one_repetition("batch-job", "thread", {"start": "warm"}) is None
    assert marked.one_repetition("batch-job", "seq", {"start": "cold"}) is None
    assert marked.one_repetition("keygen", "thread", {"start": "cold"}) is None
    assert runtime.one_repetition("batch-job", "thread", {"start": "cold"}) is None


def test_builds_start_longest_first_and_the_project_s_runtimes_say_how_long_theirs_take(tmp_path):
    def runtime(name, seconds):
        return Runtime(name, name, tmp_path, [], "true", "", [], build_seconds=seconds)
    order = runtimes.longest_build_first([runtime("a", 1), runtime("b", 128), runtime("c", 0), runtime("d", 65)])
    assert [r.name for r in order] == ["b", "d", "a", "c"]
    loaded = runtimes.load_all()
    assert loaded["rust"].build_seconds > loaded["python"].build_seconds > 0
