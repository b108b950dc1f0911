"""workloads/hooks.py: a workload module's hooks are read once and checked when it loads."""
from types import SimpleNamespace

import pytest

from parbench.workloads import SpecError, Workload, load_all
from parbench.workloads.hooks import HookError, hooks_of
from parbench.workloads.params import Integer


def toy(**overrides):
    module = dict(PARAMS={"n": Integer(0, 10, "a count")}, expected_checksum=lambda params, variant=None: "1",
                  expected_items=lambda params: 1)
    module.update(overrides)
    return SimpleNamespace(**{k: v for k, v in module.items() if v is not None})


def test_every_workload_of_the_project_loads_with_its_hooks():
    for workload in load_all().values():
        assert workload.hooks.params and callable(workload.hooks.expected_checksum)


def test_the_optional_hooks_default_to_nothing():
    hooks = hooks_of(toy(), "toy")
    assert (hooks.order, hooks.swept_param, hooks.sweeps, hooks.line_problem) == (100, None, {}, None)
    assert hooks.untimed_work == ()          # no phase outside the timer holds work unless named


@pytest.mark.parametrize("overrides, says", [
    ({"PARAMS": None}, "defines no PARAMS"),
    ({"expected_items": None}, "defines no expected_items"),
    ({"ORDER": "first"}, "ORDER is a str, not a int"),
    ({"ORDER": True}, "ORDER is a bool"),
    ({"SWEEPS": {"crossover": 4}}, "SWEEPS maps analysis names to sweep names"),
    ({"UNTIMED_WORK": "checksum"}, "UNTIMED_WORK is a str, not a tuple"),
    ({"UNTIMED_WORK": ("checksum", "prepare")}, "UNTIMED_WORK names ['prepare']; the phases are checksum, ceiling, "
                                                "baselines"),
    ({"PARAMS": {"n": 10}}, "PARAMS['n'] has no check"),
    ({"line_problem": "yes"}, "line_problem is a str, not a function"),
    ({"variants": lambda params: []}, "variants(params) cannot take the 3 argument(s)"),
    ({"line_problems": lambda line, context: None}, "defines line_problems, which is no hook of a workload: "
                                                     "did you mean line_problem?"),
    ({"SWEPT_PARAMS": "n"}, "did you mean SWEPT_PARAM?"),
])
def test_a_missing_wrong_or_misspelt_hook_is_refused_when_the_workload_loads(overrides, says):
    with pytest.raises(HookError, match=None) as refused:
        hooks_of(toy(**overrides), "toy")
    assert says in str(refused.value)
    with pytest.raises(SpecError):
        Workload("toy", "a toy", "(tests)", "terms", {"smoke": {"n": 1}}, {"n": 1}, toy(**overrides))


def test_a_hook_the_harness_calls_is_the_modules_own_function():
    seen = []
    module = toy(line_problem=lambda line, context: seen.append(line) or "bad line")
    workload = Workload("toy", "a toy", "(tests)", "terms", {"smoke": {"n": 1}}, {"n": 1}, module)
    assert workload.line_problem({"rep": 0}, None) == "bad line" and seen == [{"rep": 0}]
