"""advise/question.py: the user's value with its unit, the workload it belongs to, one-line refusals."""
import pytest

from parbench.advise.question import QuestionError, ask, parse_amount
from parbench.workloads import load_all


@pytest.mark.parametrize("text, value", [("40MB", 40_000_000), ("16MiB", 16 * 2 ** 20), ("200k", 200_000),
                                         ("200000", 200_000), ("1.5GiB", 3 * 2 ** 29), ("64 kb", 64_000)])
def test_an_amount_takes_decimal_units_and_binary_ones_only_when_spelled_so(text, value):
    assert parse_amount("size", text) == value


@pytest.mark.parametrize("text", ["40XB", "", "-3MB", "1e9", "ten", "4 0"])
def test_an_amount_that_is_not_one_is_refused_in_one_line(text):
    with pytest.raises(QuestionError, match="--param size wants a number") as error:
        parse_amount("size", text)
    assert "\n" not in str(error.value)


def test_the_workload_is_the_one_whose_swept_param_is_given():
    workloads = load_all()
    name = next(w.name for w in workloads.values() if w.swept_param == "tasks")
    question = ask(workloads, None, ("tasks=200k",), 8)
    assert (question.workload, question.param, question.value, question.cores) == (name, "tasks", 200_000, 8)


def test_other_params_fix_the_ranking_and_are_checked_by_the_workload():
    workloads = load_all()
    name = next(w.name for w in workloads.values() if w.swept_param == "size")
    question = ask(workloads, name, ("size=40MB", "cipher=table"), 2, kernel="portable")
    assert question.context == {"cipher": "table", "kernel": "portable"}
    with pytest.raises(QuestionError, match="cipher wants one of"):
        ask(workloads, name, ("size=40MB", "cipher=rot13"), 2)
    with pytest.raises(QuestionError, match="has no parameter colour"):
        ask(workloads, name, ("size=40MB", "colour=red"), 2)


def test_a_question_without_the_swept_value_says_which_param_it_needs():
    workloads = load_all()
    name = next(w.name for w in workloads.values() if w.swept_param == "size")
    with pytest.raises(QuestionError, match=r"needs --param size=VALUE"):
        ask(workloads, name, ("cipher=table",), 2)
    with pytest.raises(QuestionError, match="advise needs --workload"):
        ask(workloads, None, ("cipher=table",), 2)
    with pytest.raises(QuestionError, match="unknown workload"):
        ask(workloads, "nope", ("size=1",), 2)


def test_a_value_of_zero_is_refused_rather_than_taken_to_a_logarithm():
    workloads = load_all()
    with pytest.raises(QuestionError, match="wants a value of at least 1"):
        ask(workloads, None, ("tasks=0",), 2)


def test_the_figure_answered_is_steady_state_unless_asked_and_first_run_does_not_rank_memory():
    workloads = load_all()
    assert ask(workloads, None, ("tasks=200k",), 8).answers == "steady-state"
    assert ask(workloads, None, ("tasks=200k",), 8, answers="first-run").answers == "first-run"
    with pytest.raises(QuestionError, match="--for wants steady-state or first-run"):
        ask(workloads, None, ("tasks=200k",), 8, answers="cold")
    with pytest.raises(QuestionError, match="leave out --for first-run"):
        ask(workloads, None, ("tasks=200k",), 8, by_memory=True, answers="first-run")
