"""spawn_chain/__init__.py: its variants, its answer and the proof that n units existed at once."""
import random

from parbench.workloads import LineContext, spawn_chain


def test_variants_are_distinct_start_values_below_the_limit():
    starts = spawn_chain.variants({"n": 10}, 40, random.Random(2))
    assert len(set(starts)) == 40 and all(0 <= s < spawn_chain.START_LIMIT for s in starts)


def test_the_answer_is_the_start_value_plus_n_and_the_items_are_n():
    assert spawn_chain.expected_checksum({"n": 1000}, 5) == "1005"
    assert spawn_chain.expected_checksum({"n": 1000}) == "1000" and spawn_chain.expected_items({"n": 7}) == 7
    assert spawn_chain.machine_ceiling({"n": 9}) == ("atomic hand-off", "handoff", 9)


def test_a_concurrent_model_that_counted_fewer_live_units_than_n_is_not_a_chain():
    context = LineContext({"n": 100}, 0, {}, "processes")
    assert "only 99 of the chain's 100 units" in spawn_chain.line_problem({"extra": {"live_units": 99}}, context)
    assert spawn_chain.line_problem({"extra": {"live_units": 100}}, context) is None
    assert spawn_chain.line_problem({"extra": {}}, LineContext({"n": 100}, 0, {}, "green")) is None  # need not count


def test_a_chain_of_os_threads_or_processes_must_count_its_live_units():
    for family in ("threads", "processes"):
        context = LineContext({"n": 100}, 0, {}, family)
        assert "lacks extra.live_units" in spawn_chain.line_problem({"extra": {}}, context)
        assert "lacks extra.live_units" in spawn_chain.line_problem({"extra": {"live_units": True}}, context)


def test_os_units_claimed_beyond_the_kernels_peak_task_count_fail_and_within_it_pass():
    context = LineContext({"n": 100}, 0, {}, "threads")
    problem = spawn_chain.line_problem({"extra": {"live_units": 100, "peak_tasks": 6}}, context)
    assert "claims 100 units alive at once" in problem and "never had more than 6 tasks" in problem
    assert spawn_chain.line_problem({"extra": {"live_units": 100, "peak_tasks": 104}}, context) is None
    assert spawn_chain.line_problem({"extra": {"live_units": 100}}, context) is None     # no pids cgroup to read
    green = LineContext({"n": 100}, 0, {}, "green")       # green units are no tasks of the kernel's
    assert spawn_chain.line_problem({"extra": {"live_units": 100, "peak_tasks": 6}}, green) is None


def test_os_units_claimed_beyond_the_tasks_the_machine_made_in_the_repetition_fail():
    """The peak is the process's since its start; the tasks made are the repetition's own."""
    context = LineContext({"n": 100}, 0, {}, "processes")
    extra = {"live_units": 100, "peak_tasks": 104, "tasks_made": 3, "tasks_kept": 2}
    problem = spawn_chain.line_problem({"extra": extra}, context)
    assert "claims 100 units alive at once" in problem and "the whole machine made only 3" in problem
    assert "only 2 of the tree's threads from before ran in it" in problem
    assert spawn_chain.line_problem({"extra": {**extra, "tasks_made": 100}}, context) is None
    # A runtime that serves new units from threads it kept alive and ran (Ruby's thread cache) passes.
    assert spawn_chain.line_problem({"extra": {**extra, "tasks_made": 0, "tasks_kept": 101}}, context) is None
    green = LineContext({"n": 100}, 0, {}, "green")
    assert spawn_chain.line_problem({"extra": {**extra, "tasks_made": 0}}, green) is None


def test_seq_owes_no_count_of_live_units():
    context = LineContext({"n": 100}, 0, {}, "seq")
    assert spawn_chain.line_problem({"extra": {"live_units": 1}}, context) is None
