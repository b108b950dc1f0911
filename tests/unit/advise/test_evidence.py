"""advise/evidence.py: which stored cases bear on a question, one point each, the newest kept."""
from advise_records import run_of
from parbench.advise.evidence import gather
from parbench.advise.question import Question

W, P = "some-workload", "n"


def test_each_verified_case_is_a_point_with_its_median_and_ci_grouped_by_model_and_params():
    record = run_of(W, P, [("seq", 1000, None, 2_000_000), ("threads", 1000, 2, 1_000_000)],
                    extra_params={"kernel": "portable"})
    evidence = gather([record], Question(W, P, 5000))
    assert {(s.model, s.context) for s in evidence.series} == {("seq", (("kernel", "portable"),)),
                                                               ("threads", (("kernel", "portable"),))}
    [point] = next(s for s in evidence.series if s.model == "threads").points
    assert (point.value, point.workers, point.median_ns, point.run_id) == (1000.0, 2, 1_000_002.0, 1)
    assert point.low_ns <= point.median_ns <= point.high_ns and point.peak_bytes == 1024 * 1024


def test_the_same_point_measured_twice_counts_once_the_newest():
    old = run_of(W, P, [("seq", 1000, None, 9_000_000)], run_id=1)
    new = run_of(W, P, [("seq", 1000, None, 2_000_000)], run_id=2)
    [series] = gather([new, old], Question(W, P, 1000)).series
    assert [(p.run_id, p.median_ns) for p in series.points] == [(2, 2_000_002.0)]


def test_fixed_params_runtimes_and_failed_cases_filter_the_evidence():
    record = run_of(W, P, [("seq", 1000, None, 2_000_000)], extra_params={"kernel": "tuned"})
    assert gather([record], Question(W, P, 1000, {"kernel": "portable"})).series == []
    assert gather([record], Question(W, P, 1000, runtimes=("other",))).series == []
    record.results[0].run.status = "wrong-checksum"
    assert gather([record], Question(W, P, 1000)).series == []


def test_another_machines_runs_are_used_only_where_this_one_has_none_and_it_says_so():
    there = run_of(W, P, [("seq", 1000, None, 2_000_000)], hostname="elsewhere")
    evidence = gather([there], Question(W, P, 1000))
    assert evidence.series and "machine 'elsewhere'" in evidence.note
    here = run_of(W, P, [("seq", 4000, None, 5_000_000)], run_id=2)
    evidence = gather([there, here], Question(W, P, 1000))
    assert [p.value for p in evidence.series[0].points] == [4000.0] and evidence.note == ""


def test_a_question_about_more_cores_than_this_machine_has_is_answered_from_a_machine_that_has_them():
    here = run_of(W, P, [("threads", 1000, 2, 9_000_000)], run_id=1)
    big = run_of(W, P, [("threads", 1000, 16, 1_000_000)], run_id=2, hostname="big", logical_cpus=4096)
    evidence = gather([here, big], Question(W, P, 1000, cores=4096))
    assert [p.workers for s in evidence.series for p in s.points] == [16]
    assert "machine 'big' with 4096 logical CPUs" in evidence.note and "not extrapolated" in evidence.note
    assert gather([here, big], Question(W, P, 1000, cores=1)).note == ""     # this one suffices: its own runs


def test_a_machine_is_its_hostname_and_its_cpus_so_two_of_one_image_stay_apart():
    small = run_of(W, P, [("threads", 1000, 1, 9_000_000)], run_id=1, hostname="vm", logical_cpus=1)
    large = run_of(W, P, [("threads", 1000, 4, 3_000_000)], run_id=2, hostname="vm", logical_cpus=4000)
    evidence = gather([small, large], Question(W, P, 1000, cores=4000))
    assert [p.workers for s in evidence.series for p in s.points] == [4]


def test_a_first_run_point_is_the_median_of_its_processes_first_repetitions_with_a_ci_over_them():
    from parbench.records import Case, CaseResult, CaseRun, ProcessMeasurement, Repetition
    record = run_of(W, P, [])
    run = CaseRun(Case(W, "rt", "seq", "seq", {P: 1000}, None), "1")
    for process, first in enumerate((30_000_000, 50_000_000, 40_000_000)):
        run.processes.append(ProcessMeasurement(process, 10**9, 10**8, 0, 1024, 0, 0, 0, "ok"))
        run.repetitions += [Repetition(process, rep, 1_000_000, 1000, "1", True) for rep in range(3)]
        run.repetitions[-3].extra = {"steady_class": "warm-up", "first_ns": first}
    record.results.append(CaseResult(run))
    [point] = gather([record], Question(W, P, 1000, answers="first-run")).series[0].points
    assert point.median_ns == 40_000_000 and (point.low_ns, point.high_ns) == (30_000_000, 50_000_000)
    assert sorted(float(g[0]) for g in point.groups) == [30e6, 40e6, 50e6]
    [steady] = gather([record], Question(W, P, 1000)).series[0].points
    assert steady.median_ns == 1_000_000
