"""proofs.py: the evidence every workload's lines owe beyond their checksum: workers' busy
intervals, time the implementation accounts for, and what the launcher saw of the tree's threads."""
import pytest

from parbench.measure import proofs
from parbench.measure.process import ThreadSnapshot
from parbench.measure.proofs import (ThreadUse, booked_outside_too_much, busy_problem, overlap_share, start_problem,
                                     thread_use, time_problem)
from parbench.workloads.hooks import UNTIMED_PHASES as ALL

MS = 1_000_000


# --- extra.busy ----------------------------------------------------------------------------------
def test_busy_intervals_of_the_case_s_workers_inside_the_repetition_pass():
    assert busy_problem({"busy": [[0, 0, 5 * MS], [1, MS, 10 * MS]]}, 10 * MS, 2) is None


@pytest.mark.parametrize("extra", [{}, {"busy": []}, {"busy": "0-5"}])
def test_a_parallel_model_without_busy_intervals_is_named(extra):
    assert busy_problem(extra, MS, 2).startswith("lacks extra.busy")


@pytest.mark.parametrize("interval", [[0, 1], [0, 1, 2, 3], [0, 1.5, 2], [True, 0, 1], "x"])
def test_an_interval_that_is_not_worker_start_end_is_named(interval):
    assert "not [worker, start_ns, end_ns]" in busy_problem({"busy": [interval]}, 10 * MS, 2)


def test_a_worker_the_case_does_not_have_is_named():
    assert busy_problem({"busy": [[2, 0, MS]]}, 10 * MS, 2) == "extra.busy names worker 2, but the case has 2 worker(s)"
    assert busy_problem({"busy": [[-1, 0, MS]]}, 10 * MS, 2).startswith("extra.busy names worker -1")
    assert busy_problem({"busy": [[7, 0, MS]]}, 10 * MS, None) is None


def test_an_interval_may_lie_outside_the_repetition_only_by_the_clocks_slack():
    ns = 100 * MS                                         # slack: 5 % of it, at least 1 ms
    assert busy_problem({"busy": [[0, -5 * MS, ns + 5 * MS]]}, ns, 1) is None
    assert "lies outside the repetition's" in busy_problem({"busy": [[0, -5 * MS - 1, ns]]}, ns, 1)
    assert "lies outside" in busy_problem({"busy": [[0, 0, ns + 5 * MS + 1]]}, ns, 1)
    assert "lies outside" in busy_problem({"busy": [[0, 3 * MS, 2 * MS]]}, ns, 1)     # ends before it starts
    assert busy_problem({"busy": [[0, -MS, 10]]}, 10, 1) is None                      # the 1 ms floor


def test_the_overlap_is_the_share_of_busy_time_two_or_more_workers_shared():
    assert overlap_share([[0, 0, 10], [1, 0, 10]]) == 1.0
    assert overlap_share([[0, 0, 10], [1, 10, 20]]) == 0.0
    assert overlap_share([[0, 0, 10], [1, 5, 15]]) == pytest.approx(5 / 15)


def test_empty_intervals_have_no_overlap_to_speak_of():
    assert overlap_share([]) is None and overlap_share([[0, 5, 5], [1, 7, 3]]) is None


# --- accounted time ----------------------------------------------------------------------------------
def test_unaccounted_time_is_too_long_beyond_a_fifth_of_the_gap_plus_10_ms():
    gap = 100 * MS                                         # allowed: 20 ms + 10 ms
    assert time_problem([{"rep": 0, "ns": gap - 30 * MS, "extra": {}}], [gap], [0], untimed_work=ALL) is None
    assert "leaves 30.00 ms of the 100.00 ms" in time_problem([{"rep": 0, "ns": gap - 30 * MS - 1, "extra": {}}],
                                                              [gap], [0], untimed_work=ALL)
    with_phases = {"rep": 0, "ns": gap - 40 * MS, "extra": {"checksum_ns": 8 * MS, "cleanup_ns": 2 * MS}}
    assert time_problem([with_phases], [gap], [0], untimed_work=ALL) is None        # the gap less ns and phases


def test_time_booked_outside_the_region_is_too_much_beyond_the_work_and_10_ms():
    assert proofs.booked_outside_ns({"ns": 1, "extra": {"prepare_ns": 3, "cleanup_ns": 4.0, "checksum_ns": 99}}) == 7
    assert proofs.booked_outside_ns({"ns": 1, "extra": {"prepare_ns": True}}) == 0
    assert not booked_outside_too_much({"ns": MS, "extra": {"prepare_ns": 10 * MS}})
    assert booked_outside_too_much({"ns": MS, "extra": {"prepare_ns": 10 * MS + 1}})
    assert not booked_outside_too_much({"ns": 20 * MS, "extra": {"cleanup_ns": 20 * MS}})
    assert booked_outside_too_much({"ns": 20 * MS, "extra": {"cleanup_ns": 20 * MS + 1}})


# --- what the launcher saw of the tree (protocol 3) ---------------------------------------------------
READY = ThreadSnapshot(0, 1 * MS, {(1, 1): MS})


def test_a_repetition_on_the_threads_of_the_ready_line_is_all_kept_work():
    after = ThreadSnapshot(10 * MS, 5 * MS, {(1, 1): 3 * MS})
    use = thread_use([READY, ThreadSnapshot(5 * MS, 3 * MS, {(1, 1): MS}), after], 1)
    assert use == ThreadUse(5 * MS, 2 * MS, 0, 0, 0)
    assert use.cores == pytest.approx(0.4)


def test_threads_made_in_a_repetition_count_as_new_and_those_of_an_earlier_one_as_leftover():
    before = ThreadSnapshot(10 * MS, 5 * MS, {(1, 1): MS, (1, 5): MS})          # (1, 5): made by rep 0
    after = ThreadSnapshot(20 * MS, 15 * MS, {(1, 1): 2 * MS, (1, 5): 4 * MS, (1, 9): 6 * MS})
    assert thread_use([READY, before, after], 1) == ThreadUse(10 * MS, 10 * MS, 6 * MS, 3 * MS, 1)


def test_cpu_of_threads_that_ended_inside_the_repetition_counts_as_new():
    before = ThreadSnapshot(10 * MS, 5 * MS, {(1, 1): MS})
    after = ThreadSnapshot(20 * MS, 13 * MS, {(1, 1): 2 * MS})                   # 7 ms on threads gone since
    assert thread_use([READY, before, after], 1).new_cpu_ns == 7 * MS


def test_cpu_no_live_thread_explains_is_new_even_when_a_thread_of_before_ended():
    """No excuse for a warm model that ends one pre-made thread per repetition and works on fresh ones."""
    before = ThreadSnapshot(10 * MS, 5 * MS, {(1, 1): MS, (1, 3): MS})
    after = ThreadSnapshot(20 * MS, 13 * MS, {(1, 1): 2 * MS})
    assert thread_use([READY, before, after], 1).new_cpu_ns == 7 * MS
    assert "a warm repetition ran 7.0 ms" in start_problem("warm", thread_use([READY, before, after], 1))


def test_a_cold_repetition_on_a_pool_made_before_the_ready_line_breaks_its_promise():
    ready = ThreadSnapshot(0, 3 * MS, {(1, 1): MS, (1, 2): MS, (1, 3): MS})
    pooled = ThreadSnapshot(10 * MS, 23 * MS, {(1, 1): 2 * MS, (1, 2): 11 * MS, (1, 3): 10 * MS})
    use = thread_use([ready, pooled], 0)
    assert use.ready_cpu_ns == 10 * MS and use.new_cpu_ns == 0     # the busiest (10 ms) set aside
    assert "a cold repetition ran 10.0 ms of its 20.0 ms of CPU on threads made before the ready line" in (
        start_problem("cold", use))
    fresh = ThreadSnapshot(10 * MS, 23 * MS, {(1, 1): 2 * MS, (1, 2): 2 * MS, (1, 3): 2 * MS, (1, 9): 17 * MS})
    assert start_problem("cold", thread_use([ready, fresh], 0)) is None   # 2 ms of housekeeping: at the floor
    assert start_problem("cold", use, first=True) is None      # a JIT's compilers outwork a first repetition
    compiling = ThreadSnapshot(10 * MS, 23 * MS, {(1, 1): 2 * MS, (1, 2): 6 * MS, (1, 3): 6 * MS, (1, 9): 5 * MS})
    assert start_problem("cold", thread_use([ready, compiling], 0)) is None   # 10 ms beside 5: not twice
    # Java's compilers in a second repetition: 19.5 ms beside fresh threads' 1.4 ms of a 6 ms region
    jit = ThreadUse(30 * MS, 41 * MS, int(1.4 * MS), 0, 0, int(19.5 * MS))
    assert start_problem("cold", jit, ns=6 * MS) is None
    assert "under a tenth of its timed 20.0 ms" in start_problem("cold", jit, ns=20 * MS)
    assert "under a tenth" in start_problem("cold", use, ns=10 * MS)     # the pool's fresh threads did nothing


def test_without_a_cgroup_the_tree_cpu_is_its_live_threads():
    before = ThreadSnapshot(10 * MS, None, {(1, 1): MS})
    after = ThreadSnapshot(20 * MS, None, {(1, 1): 3 * MS, (1, 4): MS})
    assert thread_use([READY, before, after], 1) == ThreadUse(10 * MS, 3 * MS, MS, 0, 1)


def test_a_repetition_the_launcher_did_not_see_end_has_no_use():
    assert thread_use([READY], 0) is None and thread_use([], 0) is None
    assert ThreadUse(0, 5, 0, 0, 0).cores is None


def test_the_use_is_stored_beside_the_implementation_s_fields():
    assert ThreadUse(10, 25, 5, 1, 2).as_extra() == {"measured_cpu_ns": 25, "measured_cores": 2.5,
                                                     "new_thread_cpu_ns": 5, "leftover_thread_cpu_ns": 1,
                                                     "new_threads": 2, "ready_thread_cpu_ns": 0, "waited_ns": 0}


def test_a_warm_repetition_working_on_threads_it_made_breaks_its_promise():
    assert "a warm repetition ran 6.0 ms of its 10.0 ms" in start_problem("warm", ThreadUse(10 * MS, 10 * MS, 6 * MS, 0, 1))
    assert start_problem("warm", ThreadUse(10 * MS, 10 * MS, 5 * MS, 0, 1)) is None      # half: at the bar
    assert start_problem("warm", ThreadUse(1 * MS, 2 * MS, 2 * MS, 0, 1)) is None        # under the 2 ms floor


def test_a_cold_repetition_working_on_an_earlier_one_s_threads_breaks_its_promise():
    assert "a cold repetition ran 8.0 ms" in start_problem("cold", ThreadUse(10 * MS, 10 * MS, 0, 8 * MS, 0))
    assert start_problem("cold", ThreadUse(10 * MS, 10 * MS, 10 * MS, 0, 4)) is None
    assert start_problem("cold", None) is None


def test_a_line_that_claims_more_time_than_the_launcher_saw_is_named():
    lines = [{"rep": 0, "ns": 10 * MS, "extra": {}}, {"rep": 1, "ns": 10 * MS, "extra": {"checksum_ns": MS}}]
    seen = 10 * MS                                          # allowed beyond it: 1 ms + 2 %
    assert time_problem(lines[:1], [seen], [0], untimed_work=ALL) is None
    assert time_problem([{"rep": 0, "ns": seen + MS + seen // 50}], [seen], [0], untimed_work=ALL) is None
    assert time_problem([{"rep": 0, "ns": seen + MS + seen // 50 + 1}], [seen], [0], untimed_work=ALL).startswith(
        "repetition 0 (warm-ups count from 0) accounts for 11.20 ms (its ns and phases), but the launcher saw only 10.00 ms")
    assert time_problem(lines, [seen, 2 * seen], [0, seen + 5 * MS], untimed_work=ALL).startswith(
        "repetition 1 (warm-ups count from 0) accounts for 11.00 ms")


def test_one_repetition_that_leaves_its_gap_unaccounted_fails_the_case():
    honest = {"rep": 0, "ns": 10 * MS, "extra": {}}
    hidden = {"rep": 1, "ns": 10 * MS, "extra": {"checksum_ns": MS}}   # 20 ms gap: 9 ms of 14 allowed; 50 ms: 39 of 20
    assert time_problem([honest, hidden], [10 * MS, 10 * MS + 20 * MS], [0, 10 * MS], untimed_work=ALL) is None
    assert time_problem([honest, hidden], [10 * MS, 10 * MS + 50 * MS], [0, 10 * MS], untimed_work=ALL) == (
        "repetition 1 (warm-ups count from 0) leaves 39.00 ms of the 50.00 ms the launcher saw unaccounted for "
        "by its ns (10.00 ms) and phases (allowed: 20 % + 10 ms): work outside the timer")


def test_time_booked_in_a_phase_that_holds_no_work_in_the_workload_counts_as_unaccounted():
    # ns/10, the rest booked as the checksum of a spawn-chain (its answer, written out) or as a
    # baseline: the gap adds up, but those phases hold no work of their own there.
    as_checksum = {"rep": 0, "ns": 3 * MS, "extra": {"checksum_ns": 27 * MS}}
    as_baseline = {"rep": 0, "ns": 3 * MS, "extra": {"baseline_memcpy_ns": 27 * MS}}
    as_ceiling = {"rep": 0, "ns": 3 * MS, "extra": {"ceiling_setup_ns": 2 * MS, "ceiling_ns": 25 * MS}}
    assert time_problem([as_checksum], [31 * MS], [0], untimed_work=("ceiling",)) == (
        "repetition 0 (warm-ups count from 0) books checksum_ns 27.00 ms of the 31.00 ms the launcher saw, in "
        "phases that hold no work of their own in this workload, and leaves 1.00 ms unaccounted, beside its ns "
        "of 3.00 ms (allowed: 20 % + 10 ms): work outside the timer")
    assert "books baseline_memcpy_ns 27.00 ms" in time_problem([as_baseline], [31 * MS], [0], untimed_work=("checksum",))
    assert "books ceiling_ns 25.00 ms, ceiling_setup_ns 2.00 ms" in time_problem([as_ceiling], [31 * MS], [0],
                                                                                 untimed_work=())
    for line in (as_checksum, as_baseline, as_ceiling):           # where the workload names them: its own time
        assert time_problem([line], [31 * MS], [0], untimed_work=ALL) is None
    honest = {"rep": 0, "ns": 30 * MS, "extra": {"checksum_ns": 2 * MS}}   # 2 + 1 ms of 16.6 allowed
    assert time_problem([honest], [33 * MS], [0], untimed_work=()) is None


def test_one_repetition_that_books_its_work_as_preparation_fails_the_case_but_the_process_s_first():
    first = {"rep": 0, "ns": 3 * MS, "extra": {"prepare_ns": 27 * MS}}    # a JIT loading its classes
    tenth = {"rep": 1, "ns": 3 * MS, "extra": {"prepare_ns": 27 * MS}}
    assert time_problem([first], [31 * MS], [0], untimed_work=ALL) is None
    assert time_problem([first, tenth], [31 * MS, 62 * MS], [0, 31 * MS], untimed_work=ALL) == (
        "repetition 1 (warm-ups count from 0) books 27.00 ms as prepare and cleanup, more than its timed "
        "3.00 ms and 10 ms: work outside the timer")


# --- waiting for a core is not hidden work (issue 56) -------------------------------------------------
def test_time_the_kernel_says_the_tree_waited_for_a_core_is_not_counted_as_unaccounted():
    line = {"rep": 1, "ns": 10 * MS, "extra": {}}            # 50 ms gap: 40 ms unaccounted of 20 allowed
    busy: list[str] = []
    assert time_problem([line], [50 * MS], [0], untimed_work=ALL, waited_ns=[25 * MS], too_busy=busy) is None
    assert busy == ["repetition 1 (warm-ups count from 0) (25.00 ms of its 50.00 ms waiting for a core)"]
    assert "15.00 ms of it waiting for a core" in time_problem([line], [50 * MS], [0], untimed_work=ALL,
                                                               waited_ns=[15 * MS])


def test_a_repetition_judged_without_the_wait_is_not_called_too_busy():
    busy: list[str] = []
    line = {"rep": 1, "ns": 40 * MS, "extra": {}}
    assert time_problem([line], [50 * MS], [0], untimed_work=ALL, waited_ns=[5 * MS], too_busy=busy) is None
    assert busy == []


def test_waiting_left_over_from_the_gap_excuses_time_booked_outside_the_timer():
    lines = [{"rep": 0, "ns": MS, "extra": {}},
             {"rep": 1, "ns": 14 * MS, "extra": {"cleanup_ns": 15 * MS}}]    # 1 ms over its ns
    arrivals, fed = [MS, 2 * MS + 30 * MS], [0, 2 * MS]
    assert "as prepare and cleanup" in time_problem(lines, arrivals, fed, untimed_work=ALL)
    busy: list[str] = []
    assert time_problem(lines, arrivals, fed, untimed_work=ALL, waited_ns=[0, 2 * MS], too_busy=busy) is None
    assert len(busy) == 1


def test_a_tree_that_used_every_core_while_it_waited_is_excused_nothing():
    spinning = ThreadUse(10 * MS, 20 * MS, 0, 0, 0, waited_ns=15 * MS)     # 2 cores busy the whole gap
    assert spinning.wait_not_work_ns(cores=2) == 0
    waiting = ThreadUse(10 * MS, 4 * MS, 0, 0, 0, waited_ns=6 * MS)        # one thread, preempted 6 of 10 ms
    assert waiting.wait_not_work_ns(cores=2) == 6 * MS
    assert waiting.wait_not_work_ns(cores=1) == 6 * MS


def test_the_wait_is_each_thread_s_run_delay_over_the_repetition_and_the_launcher_s():
    ready = ThreadSnapshot(0, MS, {(1, 1): MS}, waits={(1, 1): 2 * MS}, launcher_wait_ns=MS)
    after = ThreadSnapshot(10 * MS, 5 * MS, {(1, 1): 3 * MS, (1, 2): MS},
                           waits={(1, 1): 5 * MS, (1, 2): MS}, launcher_wait_ns=2 * MS)
    assert thread_use([ready, after], 0).waited_ns == 3 * MS + MS + 2 * MS     # the launcher's: for this line
