"""workloads/__init__.py: the specs joined with their packages, the params a user passes checked
and expanded, names chosen, and each workload asked through `Workload`."""
import random

import pytest
from unit_world import TOY_MODULE, toy_workload

import parbench.workloads as workloads
from parbench.workloads import (SCALES, LineContext, SpecError, check_params, choose, expand, in_report_order,
                                load_all, oracle_cache, parse_param_overrides, with_noop)
from parbench.workloads.params import ParamError

NAMES = ["batch-job", "coroutine-swarm", "echo-server", "keygen", "sdes-ecb", "spawn-chain"]


def test_every_spec_loads_with_its_package_and_a_scale_of_each_kind():
    loaded = load_all()
    assert sorted(loaded) == NAMES
    for workload in loaded.values():
        assert set(SCALES) <= set(workload.scales) and workload.module.__name__.startswith("parbench.workloads.")
        assert workload.swept_param in workload.params and workload.verify_sets()


def test_every_scale_and_verification_set_passes_its_own_param_check():
    for workload in load_all().values():
        for params in [p for s in workload.scales.values() for p in expand(s)] + workload.verify_sets():
            assert workload.check_params(params) == params


def test_a_spec_whose_module_cannot_be_imported_names_it(tmp_path, monkeypatch):
    (tmp_path / "ghost.toml").write_text('name = "ghost"\ntitle = "t"\nspec = "s"\nitems = "x"\n'
                                         '[scales.smoke]\nn = 1\n[verify]\nn = 1\n')
    monkeypatch.setattr(workloads, "WORKLOADS_DIR", tmp_path)
    with pytest.raises(SpecError, match="workload ghost: its module parbench.workloads.ghost cannot be imported"):
        load_all()


def test_a_spec_may_name_a_module_of_its_own(tmp_path, monkeypatch):
    (tmp_path / "mine.toml").write_text('name = "mine"\ntitle = "t"\nspec = "s"\nitems = "x"\n'
                                        'module = "parbench.workloads.spawn_chain"\n[scales.smoke]\nn = 1\n'
                                        '[verify]\nn = [1, 2]\n')
    monkeypatch.setattr(workloads, "WORKLOADS_DIR", tmp_path)
    mine = load_all()["mine"]
    assert mine.params == ("n",) and mine.expected_checksum({"n": 2}, 3) == "5"
    assert mine.verify_sets() == [{"n": 1}, {"n": 2}]


def test_reports_follow_the_seeds_order_and_unknown_names_come_last_by_name():
    assert in_report_order(["zeta", *reversed(NAMES), "alpha"]) == [
        "keygen", "sdes-ecb", "batch-job", "spawn-chain", "coroutine-swarm", "echo-server", "alpha", "zeta"]
    assert in_report_order(["toy", "noop"], with_noop({"toy": toy_workload()})) == ["noop", "toy"]


def test_expand_makes_the_product_of_every_list_value():
    assert expand({"a": [1, 2], "b": "x", "c": [3, 4]}) == [
        {"a": 1, "b": "x", "c": 3}, {"a": 1, "b": "x", "c": 4}, {"a": 2, "b": "x", "c": 3}, {"a": 2, "b": "x", "c": 4}]
    assert expand({}) == [{}]


def test_choose_gives_the_requested_names_or_all_and_refuses_an_unknown_one_listing_the_valid():
    assert choose(("b",), ["a", "b"], "runtime") == ["b"] and choose((), ["a", "b"], "runtime") == ["a", "b"]
    with pytest.raises(SpecError, match="unknown runtime 'c'; valid: a, b"):
        choose(("a", "c"), ["a", "b"], "runtime")


def test_param_overrides_keep_integers_integers_in_any_base_and_make_comma_lists():
    assert parse_param_overrides(("size=1024,2048", "key=0b1010000010", "mask=0x10", "cipher=table",
                                  "text-length=5", "n=007")) == {
        "size": [1024, 2048], "key": 642, "mask": 16, "cipher": "table", "text_length": 5, "n": 7}


@pytest.mark.parametrize("pair, message", [("size", "wants NAME=VALUE, got 'size'"), ("=5", "wants NAME=VALUE"),
                                           ("size=1,,2", "empty value in '1,,2'"), ("size=", "empty value")])
def test_a_malformed_param_override_is_refused(pair, message):
    with pytest.raises(SpecError, match=message):
        parse_param_overrides((pair,))


def test_check_params_checks_every_value_with_each_chosen_workload_that_has_the_param():
    loaded = load_all()
    check_params(loaded, ["keygen", "sdes-ecb"], {"count": [1, 5], "size": 64, "chunk": 4096})
    with pytest.raises(SpecError, match="--param count wants a key count from 1"):
        check_params(loaded, ["keygen"], {"count": [5, 0]})
    check_params(loaded, ["sdes-ecb"], {"count": 0})         # not sdes-ecb's param: not its to check


def test_a_workloads_params_are_checked_and_a_param_it_does_not_know_passes_as_it_is():
    toy = toy_workload()
    assert toy.check_params({"n": 5, "chunk": "4k"}) == {"n": 5, "chunk": "4k"}
    with pytest.raises(ParamError):
        toy.check_params({"n": 0})


def test_a_workload_without_variants_gives_none_and_fresh_processes_do_the_rest():
    toy = toy_workload()
    assert toy.variants({"n": 1}, 5) is None
    assert toy.process_arguments({"n": 1}, None) == ({"n": 1}, None)
    context = LineContext({"n": 1}, None, {}, "seq")
    assert toy.line_problem({}, context) is None and toy.process_problem([], context) is None
    assert not toy.unique_answers({"n": 1}) and toy.machine_ceiling({"n": 1}) is None
    assert toy.process_extras({"n": 1}, random.Random(1)) == {} and toy.seed is None and toy.sweeps == {}


def test_each_process_draws_distinct_variants_afresh_and_never_the_same_sequence_twice():
    chain = load_all()["spawn-chain"]
    draws = [chain.variants({"n": 10}, 40) for _ in range(50)]
    assert all(len(set(d)) == 40 for d in draws)
    assert len({tuple(d) for d in draws}) == 50            # 2^31 starts: a repeat would be a broken generator
    assert len({d[0] for d in draws}) > 45


def test_no_variant_is_kept_on_disk_where_a_benchmark_could_find_it(tmp_path, monkeypatch):
    monkeypatch.setenv("PARBENCH_CACHE", str(tmp_path / "inputs"))
    oracle_cache._memory.cache_clear()
    load_all()["spawn-chain"].variants({"n": 10}, 5)
    assert not (tmp_path / "oracle").exists()


def test_noop_joins_the_workloads_as_a_workload_of_its_own():
    joined = with_noop({"toy": toy_workload()})
    assert list(joined) == ["toy", "noop"] and joined["noop"].expected_checksum({}) == "noop"
    assert joined["toy"].module is TOY_MODULE
