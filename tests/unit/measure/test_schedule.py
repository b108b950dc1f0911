"""schedule.py: the order of the processes of one table, when a case has enough, and what a
runner and a sink hear."""
from unit_world import ListSink, ScriptedRunner

from parbench.kinds.exec import ExecOptions, commands_for
from parbench.kinds.exec.runner import ExecRunner
from parbench.measure import runner as run
from parbench.measure import schedule
from parbench.measure.runner import Settings
from parbench.measure.schedule import Progress, execute, groups_of
from parbench.records import Case

SEQ = Case("toy", "rt", "seq", "seq", {"n": 10})
POOL = Case("toy", "rt", "pool", "threads", {"n": 10}, 2)
BIGGER = Case("toy", "rt", "seq", "seq", {"n": 20})


def settings(**overrides) -> Settings:
    return Settings(**{"processes": 3, "warmup": 0, "repeat": 1, "timeout": 10, **overrides})


def test_both_runners_are_what_the_scheduler_asks_for():
    options = ExecOptions(["true"])
    assert isinstance(run.WorkloadRunner({}, {}, settings()), schedule.ProcessRunner)
    assert isinstance(ExecRunner(commands_for(options), options, settings(), 0), schedule.ProcessRunner)
    assert not isinstance(object(), schedule.ProcessRunner)


def test_cases_of_one_table_are_grouped_and_tables_keep_their_order():
    assert groups_of([SEQ, BIGGER, POOL]) == [[SEQ, POOL], [BIGGER]]


def test_the_cases_of_a_table_take_turns_one_process_each():
    runner = ScriptedRunner({"seq": [100], "pool": [50]}, settings())
    execute([SEQ, POOL], runner, ListSink(), Progress())
    assert runner.order == [SEQ.key, POOL.key] * 3


def test_sequential_order_runs_each_case_to_its_end_first():
    runner = ScriptedRunner({"seq": [100], "pool": [50]}, settings(order="sequential"))
    execute([SEQ, POOL], runner, ListSink(), Progress())
    assert runner.order == [SEQ.key] * 3 + [POOL.key] * 3


def test_a_case_stops_once_its_median_is_precise_enough_never_below_two_processes():
    runner = ScriptedRunner({"seq": [100]}, settings(processes=10, target_ci=0.03))
    done = execute([SEQ], runner, ListSink(), Progress())
    assert len(done.done[0].processes) == 2
    assert done.done[0].flags["stopped"] == "converged after 2 processes"


def test_a_noisy_case_runs_to_its_process_count():
    runner = ScriptedRunner({"seq": [100, 300, 50, 900]}, settings(processes=5, target_ci=0.03))
    done = execute([SEQ], runner, ListSink(), Progress())
    assert len(done.done[0].processes) == 5 and "stopped" not in done.done[0].flags


def test_a_case_that_fails_its_first_check_runs_no_timed_process_and_the_others_go_on():
    runner = ScriptedRunner({"seq": [100], "pool": [50]}, settings(), failing={"pool"})
    sink = ListSink()
    done = execute([SEQ, POOL], runner, sink, Progress())
    pool = next(r for r in done.done if r.case == POOL)
    assert pool.status == "crash" and POOL.key not in runner.order
    assert [r.case for r in sink.done] == [POOL, SEQ]


def test_every_process_reaches_the_sink_with_its_place_in_the_runs_order():
    sink = ListSink()
    done = execute([SEQ, POOL], ScriptedRunner({"seq": [100], "pool": [50]}, settings()), sink, Progress())
    assert len(sink.processes) == 6
    assert sorted(p.sequence for r in done.done for p in r.processes) == list(range(6))


def test_the_runner_hears_when_each_table_is_done_and_the_sentinel_runs_between_tables():
    runner = ScriptedRunner({"seq": [100], "pool": [50]}, settings(processes=2))
    between = []
    execute([SEQ, POOL, BIGGER], runner, ListSink(), Progress(), between.append)
    assert runner.finished_groups == [[SEQ.key, POOL.key], [BIGGER.key]]
    assert between == [None, SEQ, BIGGER]


def test_an_interruption_marks_the_cases_in_flight_and_keeps_their_processes():
    class Interrupting(ScriptedRunner):
        def one_process(self, case, index, warmup, repeat):
            if index == 1:
                raise KeyboardInterrupt
            return super().one_process(case, index, warmup, repeat)
    done = execute([SEQ, POOL], Interrupting({"seq": [100], "pool": [50]}, settings()), ListSink(), Progress())
    assert done.interrupted and {r.status for r in done.done} == {"interrupted"}
    assert [len(r.processes) for r in done.done] == [1, 1]
