"""case_results.py: statistics for the cases that ran (a stopped case's finished processes
included), none for failed ones, then their comparisons."""
from unit_records import CORES, case_run, failed_run

from parbench.analysis.case_results import analyze


def test_every_run_gets_one_result_in_its_order():
    runs = [case_run(), failed_run(), case_run("pool", "threads", workers=2)]
    assert [r.run for r in analyze(runs, CORES)] == runs


def test_a_case_that_ran_has_the_statistics_of_its_verified_repetitions():
    result, = analyze([case_run(times=((100, 110, 105), (102, 108, 104)))], CORES)
    assert result.stats.n == 6 and result.stats.min_ns == 100 and result.stats.max_ns == 110


def test_a_failed_case_has_no_statistics():
    result, = analyze([failed_run()], CORES)
    assert result.stats is None and result.vs_seq is None


def test_an_interrupted_case_keeps_what_its_finished_processes_measured():
    run = case_run()
    run.status = "interrupted"
    assert analyze([run], CORES)[0].stats.n == 6


def test_the_results_come_back_compared_with_each_other():
    seq, pool = analyze([case_run(), case_run("pool", "threads", ((50, 55, 52), (51, 54, 53)), workers=2)], CORES)
    assert pool.vs_seq is not None and pool.vs_seq.reference == seq.case.key


def test_the_cpu_utilisation_is_shared_over_the_cores_it_is_given():
    one_core, = analyze([case_run()], 1)
    two_cores, = analyze([case_run()], 2)
    assert one_core.stats.cpu_utilisation == 2 * two_cores.stats.cpu_utilisation
