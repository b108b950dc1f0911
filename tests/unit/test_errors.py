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
