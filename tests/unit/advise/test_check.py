"""advise/check.py: what is run for a check, what is not, and when a measurement is inside."""
from parbench.advise.advice import Advice
from parbench.advise.check import CheckRow, check_one, run_arguments
from parbench.advise.predict import Band, Prediction
from parbench.advise.question import Question


def threads(workers: int | None) -> Prediction:
    return Prediction("rt", "threads", "threads", {"kernel": "portable"}, workers, Band(10, 8, 12), "measured",
                      False, [1.0], workers, "measured", None, "")


ADVICE = Advice(Question("w", "size", 4000, {"kernel": "portable"}, 8), {}, 2, [], [])


def test_a_check_runs_the_case_at_the_asked_value_params_and_cores():
    assert run_arguments(ADVICE, threads(8)) == ("run", "--workload", "w", "--runtime", "rt", "--model", "threads",
                                                 "--param", "size=4000", "--param", "kernel=portable", "--workers", "8")
    assert "--workers" not in run_arguments(ADVICE, threads(None))


def test_cores_beyond_this_machine_are_not_run_and_it_says_why(tmp_path):
    row = check_one(ADVICE, threads(8), str(tmp_path / "never.sqlite"), ())
    assert row.measured is None and row.inside is None and "more than this machine's 2 CPUs" in row.note
    assert not (tmp_path / "never.sqlite").exists()


def test_inside_means_the_measured_median_within_the_predicted_interval():
    assert CheckRow(threads(2), Band(12, 11, 13)).inside
    assert not CheckRow(threads(2), Band(12.5, 12.1, 13)).inside
