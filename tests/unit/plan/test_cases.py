"""plan.py: from a request and what the runtimes offer, the cases to run and the lines skipped."""
import pytest
from unit_world import description, runtime, world

from parbench.measure.runtimes import Model
from parbench.plan.cases import Request, choose_runtimes, make_plan
from parbench.workloads import SpecError


def test_every_offered_model_becomes_a_case_at_the_scales_params():
    workloads, runtimes, described = world()
    plan = make_plan(Request(scale="smoke", workers=(2,)), workloads, runtimes, described)
    assert [c.key for c in plan.cases] == ["toy/fast/seq[n=10]", "toy/fast/pool[n=10,workers=2]",
                                          "toy/slow/seq[n=10]"]
    assert plan.workloads == ["toy"] and plan.skipped == []


def test_a_list_param_makes_one_case_per_value():
    workloads, runtimes, described = world()
    plan = make_plan(Request(scale="quick", models=("seq",), runtimes=("fast",)), workloads, runtimes,
                     {"fast": described["fast"]})
    assert [c.params["n"] for c in plan.cases] == [100, 1000]


def test_a_param_only_one_runtime_takes_skips_the_other_with_a_reason():
    workloads, runtimes, described = world()
    plan = make_plan(Request(scale="smoke", params={"chunk": 4}), workloads, runtimes, described)
    assert {c.runtime for c in plan.cases} == {"slow"}
    assert plan.skipped == ["fast: toy takes no --chunk"]


@pytest.mark.parametrize("request_, named", [
    (Request(scale="huge"), "scale 'huge'"), (Request(order="random"), "order 'random'"),
    (Request(workloads=("nope",)), "workload 'nope'"), (Request(models=("nope",)), "model 'nope'"),
    (Request(params={"nope": 1}), "param 'nope'")])
def test_an_unknown_name_is_one_error_naming_it(request_, named):
    workloads, runtimes, described = world()
    with pytest.raises(SpecError, match=named):
        make_plan(request_, workloads, runtimes, described)


def test_a_value_outside_the_params_type_is_refused():
    workloads, runtimes, described = world()
    with pytest.raises(SpecError):
        make_plan(Request(scale="smoke", params={"n": 0}), workloads, runtimes, described)


def test_runtime_names_are_checked_once_where_they_are_chosen():
    _, runtimes, _ = world()
    assert choose_runtimes(Request(), runtimes) == ["fast", "slow"]
    with pytest.raises(SpecError, match="runtime 'nope'"):
        choose_runtimes(Request(runtimes=("nope",)), runtimes)


def test_a_runtimes_override_changes_its_own_cases_and_says_why():
    workloads, _, _ = world()
    runtimes = {"slow": runtime("slow", [{"scale": "smoke", "workload": "toy", "set": {"n": 5}, "why": "it is slow"}])}
    described = {"slow": description("slow", {"seq": Model("seq", "seq")})}
    [case] = make_plan(Request(scale="smoke"), workloads, runtimes, described).cases
    assert case.params == {"n": 5} and case.overrides == ("n=5: it is slow",)


def test_the_common_row_holds_a_runtime_whose_override_changes_its_own_row():
    workloads, _, _ = world()
    workloads["toy"].common["smoke"] = {"n": 3}
    runtimes = {"slow": runtime("slow", [{"scale": "smoke", "workload": "toy", "set": {"n": 5}, "why": "it is slow"}])}
    described = {"slow": description("slow", {"seq": Model("seq", "seq")})}
    cases = make_plan(Request(scale="smoke"), workloads, runtimes, described).cases
    assert sorted((c.params["n"], c.overrides) for c in cases) == [(3, ()), (5, ("n=5: it is slow",))]


def test_without_a_common_set_a_runtimes_override_is_its_only_row():
    workloads, _, _ = world()
    runtimes = {"slow": runtime("slow", [{"scale": "smoke", "workload": "toy", "set": {"n": 5}, "why": "it is slow"}])}
    described = {"slow": description("slow", {"seq": Model("seq", "seq")})}
    [case] = make_plan(Request(scale="smoke"), workloads, runtimes, described).cases
    assert case.params == {"n": 5}


def test_each_start_mode_asked_for_is_a_case_and_an_unavailable_one_is_a_skip_line():
    workloads, _, _ = world()
    runtimes = {"r": runtime("r", [])}
    pool = Model("pool", "threads", True, starts={"cold": "made per repetition", "warm": "made once"})
    goroutines = Model("goroutines", "green", True, starts={"warm": "made once"},
                       start_unavailable={"cold": "the scheduler's threads are always there"})
    described = {"r": description("r", {"pool": pool, "goroutines": goroutines})}
    plan = make_plan(Request(scale="smoke", workers=(2,), params={"start": ["cold", "warm"]}), workloads,
                     runtimes, described)
    assert sorted((c.model, c.params["start"]) for c in plan.cases) == [
        ("goroutines", "warm"), ("pool", "cold"), ("pool", "warm")]
    assert plan.skipped == ["r: toy goroutines has no cold start: the scheduler's threads are always there"]
    assert len({c.table for c in plan.cases}) == 1 and {c.label for c in plan.cases} == {
        "r goroutines ×2 warm", "r pool ×2 cold", "r pool ×2 warm"}


def test_a_model_that_offers_start_modes_runs_its_default_when_none_is_asked():
    workloads, _, _ = world()
    pool = Model("pool", "threads", True, starts={"cold": "made per repetition", "warm": "made once"})
    plan = make_plan(Request(scale="smoke", workers=(2,)), workloads, {"r": runtime("r", [])},
                     {"r": description("r", {"pool": pool})})
    assert [c.params["start"] for c in plan.cases] == ["cold"]


def test_the_users_own_value_beats_a_runtimes_override():
    workloads, _, _ = world()
    runtimes = {"slow": runtime("slow", [{"scale": "smoke", "workload": "toy", "set": {"n": 5}, "why": "slow"}])}
    described = {"slow": description("slow", {"seq": Model("seq", "seq")})}
    [case] = make_plan(Request(scale="smoke", params={"n": 7}), workloads, runtimes, described).cases
    assert case.params == {"n": 7} and case.overrides == ()


def test_a_plan_left_empty_by_a_start_mode_no_model_offers_is_refused_naming_that_reason():
    """Issue 46: `--model openmp --param start=cold` said "no installed runtime offers the
    requested workload/model"; the reason (openmp has no cold start) showed only beside another model."""
    workloads, _, _ = world()
    goroutines = Model("goroutines", "green", True, starts={"warm": "made once"},
                       start_unavailable={"cold": "the scheduler's threads are always there"})
    plan = make_plan(Request(scale="smoke", workers=(2,), models=("goroutines",), params={"start": "cold"}),
                     workloads, {"r": runtime("r", [])}, {"r": description("r", {"goroutines": goroutines})})
    assert plan.cases == []
    assert plan.nothing_to_run() == ("nothing to run: r: toy goroutines has no cold start: "
                                     "the scheduler's threads are always there")


def test_a_workload_left_out_of_a_scales_whole_suite_is_a_skip_line_and_runs_when_named():
    import dataclasses
    workloads, runtimes, described = world()
    workloads = {"toy": dataclasses.replace(workloads["toy"], unnamed_scales=("smoke",))}
    whole = make_plan(Request(scale="quick"), workloads, runtimes, described)
    assert whole.cases == [] and whole.skipped == [
        "toy: left out of the quick suite (its cases take minutes there); name it to run it: --workload toy"]
    assert make_plan(Request(scale="quick", workloads=("toy",)), workloads, runtimes, described).cases
    assert make_plan(Request(scale="smoke"), workloads, runtimes, described).cases
