"""kinds/exec/fit.py: which parameter --fit sweeps, refused before anything runs when no law fits."""
import pytest

from parbench.kinds.exec.commands import ExecError, ExecOptions, commands_for
from parbench.kinds.exec.fit import FitRequest, fit_record, fit_request
from parbench.kinds.exec.runner import unique_cases


def _options(*commands, lists=(), scan=None) -> ExecOptions:
    return ExecOptions(list(commands), parameter_lists=list(lists), parameter_scan=scan)


def test_the_parameter_named_like_the_axis_or_the_only_one_or_the_one_named():
    assert fit_request("workers", _options("x {workers}", lists=[("workers", ["1", "2"])])) == FitRequest("workers", "workers")
    assert fit_request("workers", _options("x {t}", scan=("t", "1", "4"))) == FitRequest("workers", "t")
    two = _options("x {t} {s}", lists=[("t", ["1", "2"]), ("s", ["a", "b"])])
    assert fit_request("workers=t", two) == FitRequest("workers", "t")
    with pytest.raises(ExecError, match="which parameter is the workers"):
        fit_request("workers", two)


@pytest.mark.parametrize("spec, options, refusal", [
    ("speed", _options("x {w}", lists=[("w", ["1", "2"])]), "the axis is one of"),
    ("workers", _options("x"), "needs a parameter to sweep"),
    ("workers", _options("x {w}", lists=[("w", ["2", "4"])]), "speedup is against the 1-worker run"),
    ("workers", _options("x {w}", lists=[("w", ["1", "1.5"])]), "is not a worker count"),
    ("size", _options("x {s}", lists=[("s", ["1", "big"])]), "is not a size"),
    ("size", _options("x {s}", lists=[("s", ["1", "2"])]), "give two commands or more"),
    ("count", _options("x {n}", lists=[("n", ["5"])]), "at least two values"),
])
def test_a_sweep_no_law_fits_is_refused(spec, options, refusal):
    with pytest.raises(ExecError, match=refusal):
        fit_request(spec, options)


@pytest.mark.parametrize("axis", ["workers", "size", "count"])
@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "1e400", "1e3", "2.5", "0", "-1", "1_0", "\u0661", "0x10",
                                   "10000000000000001"])
def test_every_axis_takes_whole_numbers_in_its_range_only(axis, value):
    options = _options("x {v}", "y {v}", lists=[("v", ["1", "2", value])])
    with pytest.raises(ExecError, match=f"is not a .*whole number from 1 to"):
        fit_request(f"{axis}=v", options)


def test_a_whole_number_written_with_a_zero_fraction_is_that_number():
    assert fit_request("count", _options("x {count}", lists=[("count", ["1.0", "2", "+3"])])) == FitRequest("count", "count")


def test_a_named_parameter_the_command_line_lacks_is_said_to_be_none_of_its_parameters():
    with pytest.raises(ExecError, match=r"--fit workers=threads: \{threads\} is not a parameter of the command line "
                                        r"\(its parameters: w\)"):
        fit_request("workers=threads", _options("x {w}", lists=[("w", ["1", "2"])]))


def test_no_fit_asked_is_none():
    assert fit_request(None, _options("x")) is None


def test_the_record_says_which_command_line_each_case_ran():
    options = _options("a {size}", "b {size}", lists=[("size", ["1", "2"])])
    commands = commands_for(options)
    cases = unique_cases(commands)
    stored = fit_record(FitRequest("size", "size"), options, cases, commands)
    assert stored["commands"] == ["a {size}", "b {size}"]
    assert [stored["template_of"][case.key] for case in cases] == [0, 1, 0, 1]


def test_a_refinement_round_measures_the_middle_of_the_bracket_that_crosses_once():
    from parbench.analysis.crossover import CrossoverResult
    from parbench.kinds.exec.fit import refined, refinement_values
    crossing = CrossoverResult([10, 100, 1000], [2.0, 0.8, 0.5], [], 50.0, None, "")
    assert refinement_values([("crossover", "b against a", crossing)]) == [32]
    narrow = CrossoverResult([10, 12], [2.0, 0.8], [], 11.0, None, "")
    assert refinement_values([("crossover", "b against a", narrow)]) == []      # nothing left to halve
    options = ExecOptions(["a {size} {x}", "b {size}"], names=["n1", "n2", "n3", "n4"], reference="ref",
                          parameter_scan=("size", "10", "100"), step="90")
    again = refined(options, "size", [32])
    assert again.parameter_scan is None and again.parameter_lists == [("size", ["32"])]
    assert again.reference is None and again.names == []


def test_per_benchmark_options_leave_a_size_sweep_unrefined():
    options = _options("a {s}", "b {s}", lists=[("s", ["1", "2"])])
    assert fit_request("size", options, refine=2).refine == 2
    options.prepare = ["p1", "p2", "p3", "p4"]
    assert fit_request("size", options, refine=2).refine == 0
