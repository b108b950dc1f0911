"""advise/measure.py: the exact sweep that would measure what an advice lacks."""
from parbench.advise.measure import missing_sweeps
from parbench.advise.predict import Band, Prediction, Unpredictable
from parbench.advise.question import Question
from parbench.workloads import load_all


def prediction(extrapolated: bool) -> Prediction:
    return Prediction("rt", "threads", "threads", {}, 2, Band(1, 1, 1), "linear per item", extrapolated, [1.0], 2,
                      "measured", None, "")


def workload_sweeping(kind: str):
    return next(w for w in load_all().values() if kind in w.sweeps.values())


def test_an_extrapolated_size_is_measured_by_a_size_sweep_up_to_it():
    workload = workload_sweeping("size")
    question = Question(workload.name, workload.swept_param, 40_000_000, {"kernel": "portable"}, 2, ("go",))
    [missing] = missing_sweeps(question, [prediction(True)], [], 2, workload)
    assert missing.command() == (f"./parbench sweep size --workload {workload.name} --runtime go --param kernel=portable "
                                 f"--from 2500000 --to 40000000 --factor 4")


def test_an_extrapolated_task_count_is_measured_by_a_task_sweep_ending_at_it():
    workload = workload_sweeping("tasks")
    question = Question(workload.name, workload.swept_param, 200_000, {}, 2)
    [missing] = missing_sweeps(question, [prediction(True)], [], 2, workload)
    assert missing.arguments[-2:] == ("--counts", "12500,50000,200000")
    assert missing.command("/tmp/a b.sqlite").endswith("--db '/tmp/a b.sqlite'")     # quoted for a shell


def test_a_model_without_a_worker_sweep_gets_one_up_to_the_cores_this_machine_has():
    workload = workload_sweeping("size")
    question = Question(workload.name, workload.swept_param, 1000, {}, 8)
    lacking = [Unpredictable("rt", "threads", "threads", {}, "measured at ×2 only")]
    [missing] = missing_sweeps(question, [prediction(False)], lacking, 4, workload)
    assert missing.arguments[:2] == ("sweep", "workers")
    assert missing.arguments[-4:] == ("--param", f"{workload.swept_param}=1000", "--workers", "1,2,4")
    assert "beyond this machine's 4 CPUs" in missing.reason


def test_nothing_is_missing_when_every_prediction_stands_on_measured_values():
    workload = workload_sweeping("size")
    question = Question(workload.name, workload.swept_param, 1000, {}, 2)
    assert missing_sweeps(question, [prediction(False)], [], 2, workload) == []
