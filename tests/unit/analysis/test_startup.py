"""startup.py: where a process's time goes (start-up, input loading, work, the rest), each
measured in the process itself, the median over a case's processes."""
import pytest

from parbench.analysis.startup import TimeSplit, time_splits
from parbench.records import Case, CaseResult, CaseRun, ProcessMeasurement, Repetition

CASE = Case("toy", "rt", "seq", "seq", {"n": 10})


def process(index: int, wall_ns: int, outcome: str = "ok") -> ProcessMeasurement:
    return ProcessMeasurement(index, wall_ns, 0, 0, 1000, 0, 0, 0 if outcome == "ok" else 1, outcome)


def result(processes: list[tuple[int, list[int], dict]], case: Case = CASE, stats: object = "stats") -> CaseResult:
    """A case whose process i had wall `wall`, repetitions `reps` (ns) and its first line's `extra`."""
    run = CaseRun(case, "42")
    for index, (wall, reps, extra) in enumerate(processes):
        run.processes.append(process(index, wall))
        run.repetitions += [Repetition(index, rep, ns, 1, "42", True, extra if rep == 0 else {})
                            for rep, ns in enumerate(reps)]
    return CaseResult(run, stats=stats)


def test_a_process_splits_into_start_up_loading_work_and_the_rest():
    split, = time_splits([result([(1000, [100, 200], {"startup_ns": 300, "load_ns": 50, "warmup_ns": 150})])])
    assert split == TimeSplit(CASE.key, 1000.0, 300.0, 50.0, 450.0, 1000 - 300 - 50 - 450)


def test_each_part_is_the_median_over_the_processes():
    split, = time_splits([result([(1000, [100], {"startup_ns": 100}), (2000, [300], {"startup_ns": 500}),
                                  (1500, [200], {"startup_ns": 200})])])
    assert (split.process_wall_ns, split.boot_ns, split.work_ns, split.rest_ns) == (1500, 200, 200, 1100)


def test_a_run_stored_before_lines_were_stamped_has_no_start_up_and_no_rest():
    split, = time_splits([result([(1000, [100, 100], {})])])
    assert split.boot_ns is None and split.rest_ns is None and split.load_ns is None and split.work_ns == 200


def test_no_loading_reported_counts_as_none_in_the_rest():
    split, = time_splits([result([(1000, [100], {"startup_ns": 300})])])
    assert split.load_ns is None and split.rest_ns == 600


def test_the_first_repetition_carries_the_figures_whatever_order_they_were_stored_in():
    run_result = result([(1000, [100, 100], {})])
    run_result.run.repetitions.reverse()
    run_result.run.repetitions[-1].extra.update({"startup_ns": 400})
    assert time_splits([run_result])[0].boot_ns == 400


@pytest.mark.parametrize("value", [True, "300", None, [1]])
def test_a_figure_that_is_not_a_number_is_not_one(value):
    split, = time_splits([result([(1000, [100], {"startup_ns": value})])])
    assert split.boot_ns is None


def test_noop_cases_and_cases_without_statistics_are_left_out():
    noop = result([(1000, [100], {})], case=Case("noop", "rt", "seq", "seq", {}))
    failed = result([(1000, [100], {})], stats=None)
    assert time_splits([noop, failed]) == []


def test_failed_and_verification_processes_are_left_out_and_a_case_with_none_left_has_no_split():
    r = result([(1000, [100], {"startup_ns": 100}), (9000, [900], {"startup_ns": 900})])
    r.run.processes[1].outcome = "crash"
    assert time_splits([r])[0].process_wall_ns == 1000
    r.run.processes[0].index = -1
    assert time_splits([r]) == []


def test_a_split_is_a_plain_dict_of_its_fields():
    assert TimeSplit("k", 1.0, None, None, 0.5, None).as_dict() == {
        "case": "k", "process_wall_ns": 1.0, "boot_ns": None, "load_ns": None, "work_ns": 0.5, "rest_ns": None}
