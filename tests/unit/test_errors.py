"""errors.py: the one error a stage raises, and the exit codes it carries."""
import pytest

from parbench.errors import EXIT_FAILED_CASE, EXIT_OK, EXIT_REGRESSION, EXIT_USAGE, PipelineError


def test_the_exit_codes_are_distinct_and_zero_means_ok():
    assert (EXIT_OK, EXIT_REGRESSION, EXIT_USAGE, EXIT_FAILED_CASE) == (0, 1, 2, 3)


def test_a_pipeline_error_is_a_usage_error_unless_told_otherwise():
    assert PipelineError("no such workload").code == EXIT_USAGE


def test_a_pipeline_error_carries_its_sentence_and_the_code_it_is_given():
    error = PipelineError("the store is locked", EXIT_REGRESSION)
    assert str(error) == "the store is locked" and error.code == EXIT_REGRESSION


def test_a_pipeline_error_is_caught_as_a_runtime_error():
    with pytest.raises(RuntimeError, match="stop here"):
        raise PipelineError("stop here", EXIT_FAILED_CASE)


def _documented_exit_codes() -> dict[str, str]:
    from pathlib import Path
    text = (Path(__file__).parents[2] / "docs" / "reliability.md").read_text()
    section = text.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    rows = [line.split("|")[1:3] for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    return {code.strip(): what.strip() for code, what in rows[1:]}


def test_the_documented_exit_codes_are_errors_py_s_one_per_class():
    from parbench.errors import EXIT_NOT_WRITTEN
    from parbench.measure.liveness import HANDLED
    table = _documented_exit_codes()
    assert table[str(EXIT_OK)] == "done"
    assert "regression" in table[str(EXIT_REGRESSION)] and "could not be stored or written" in table[str(EXIT_NOT_WRITTEN)]
    assert table[str(EXIT_USAGE)].startswith("refused") and "--strict" in table[str(EXIT_FAILED_CASE)]
    assert table[" / ".join(str(c) for c in sorted(HANDLED.values()))].startswith("stopped by")
    assert len(table) == 5


def test_an_answer_advise_could_not_write_is_the_class_of_every_unwritten_output():
    """Issue 46: `advise --export-json /dev/full` exited 2 where show, exec and report exit 1."""
    from parbench.advise.command import AdviseError, _write
    from parbench.errors import EXIT_NOT_WRITTEN
    with pytest.raises(AdviseError) as refused:
        _write("{}", "/dev/full")
    assert refused.value.code == EXIT_NOT_WRITTEN
