"""run.judge: the verdict on one process from what it printed, how it ended and what it owed."""
import json

from unit_world import toy_workload

from parbench.measure.process import Finished, ThreadSnapshot
from parbench.measure.runner import Expectations, judge
from parbench.workloads import LineContext

PARAMS = {"n": 10}
READY = {"ready": "none"}      # protocol 3: every process's first line


def expectations(repeat: int = 2, workers: int | None = None) -> Expectations:
    return Expectations(repeat, ["10"] * repeat, [LineContext(PARAMS, None, {}, "seq")] * repeat,
                        toy_workload(), workers)


def finished(lines: list[dict] | list[str], exit_code: int | None = 0, wall_ns: int = 10_000_000,
             stderr: str = "", **overrides) -> Finished:
    text = [json.dumps(READY)] + [line if isinstance(line, str) else json.dumps(line) for line in lines]
    fields = dict(stdout_lines=text, stdout_times=[1000 * (i + 1) for i in range(len(text))], stdout_digest="",
                  stdout_problem=None, stdout_head="", stderr=stderr, exit_code=exit_code, timed_out=False,
                  wall_ns=wall_ns, user_ns=wall_ns // 2, sys_ns=0, max_rss_kb=1000, voluntary_switches=0,
                  involuntary_switches=0)
    return Finished(**{**fields, **overrides})


def rep(index: int, checksum: str = "10", ns: int = 1_000_000, items: int = 10) -> dict:
    return {"rep": index, "ns": ns, "items": items, "checksum": checksum}


def test_right_answers_in_time_are_verified_repetitions():
    measurement, reps = judge(finished([rep(0), rep(1)]), 0, expectations(), 60)
    assert measurement.outcome == "ok" and [r.verified for r in reps] == [True, True]
    assert [r.ns for r in reps] == [1_000_000, 1_000_000]


def test_a_wrong_checksum_fails_the_process_and_no_repetition_counts():
    measurement, reps = judge(finished([rep(0), rep(1, checksum="11")]), 0, expectations(), 60)
    assert measurement.outcome == "wrong-checksum" and "'11'" in measurement.detail
    assert not any(r.verified for r in reps)


def test_fewer_repetitions_than_asked_is_bad_output():
    measurement, _ = judge(finished([rep(0)]), 0, expectations(), 60)
    assert measurement.outcome == "bad-output" and "asked for 2" in measurement.detail


def test_a_repetition_longer_than_its_whole_process_cannot_be_believed():
    measurement, _ = judge(finished([rep(0, ns=20_000_000), rep(1)]), 0, expectations(), 60)
    assert measurement.outcome == "bad-output" and "longer than the whole process" in measurement.detail


def test_a_timeout_is_a_timeout_whatever_was_printed():
    measurement, _ = judge(finished([rep(0), rep(1)], exit_code=None, timed_out=True), 0, expectations(), 5)
    assert measurement.outcome == "timeout" and "5 s" in measurement.detail


def test_the_protocols_limit_line_is_a_limit_with_its_reason():
    measurement, _ = judge(finished([{"error": "limit", "detail": "too many threads"}], exit_code=3), 0,
                           expectations(), 60)
    assert (measurement.outcome, measurement.detail) == ("limit", "too many threads")


def test_exit_2_is_bad_arguments_and_another_exit_a_crash_with_stderrs_last_line():
    bad, _ = judge(finished([], exit_code=2, stderr="unknown model x\n"), 0, expectations(), 60)
    crash, _ = judge(finished([rep(0), rep(1)], exit_code=1, stderr="trace\npanic: boom\n"), 0, expectations(), 60)
    assert (bad.outcome, bad.detail) == ("bad-arguments", "unknown model x")
    assert crash.outcome == "crash" and crash.detail == "exit 1: panic: boom"


def test_a_line_that_is_not_json_is_bad_output():
    measurement, _ = judge(finished([rep(0), "not json", rep(1)]), 0, expectations(), 60)
    assert measurement.outcome == "bad-output" and "line 3" in measurement.detail


def test_a_parallel_model_must_show_its_workers_busy():
    measurement, _ = judge(finished([rep(0), rep(1)]), 0, expectations(workers=2), 60)
    assert measurement.outcome == "unproven"


def test_a_line_the_launcher_would_not_answer_fails_with_the_readers_reason_where_it_has_one():
    noise, _ = judge(finished([rep(0), "noise"], protocol_problem="stdout line 3 is not repetition 1's line: noise"),
                     0, expectations(), 60)
    assert noise.outcome == "bad-output" and noise.detail.startswith("stdout line 3 is not JSON")
    assert noise.detail.endswith("no further variant was written)")
    other, _ = judge(finished([rep(0), rep(1)], protocol_problem="stdout line 2 is not repetition 0's line: x"),
                     0, expectations(), 60)
    assert other.detail.startswith("stdout line 2 is not repetition 0's line: x (protocol 4")


def test_the_launchers_first_timed_repetition_splits_warm_up_from_timed_and_classifies_the_process():
    lines = [rep(0, ns=4_000_000), rep(1, ns=2_000_000), rep(2), rep(3), rep(4)]
    measurement, reps = judge(finished(lines, first_timed=3, feed_verdict="steady"), 0,
                              Expectations(2, ["10"] * 5, [LineContext(PARAMS, None, {}, "seq")] * 5, toy_workload(),
                                           None), 60)
    assert measurement.outcome == "ok" and [r.rep for r in reps] == [0, 1]
    first = reps[0].extra
    assert (first["steady_class"], first["first_ns"], first["warmup_reps"], first["warmup_ns"]) == \
        ("warm-up", 4_000_000, 3, 7_000_000)


def _owing(lines: int) -> Expectations:
    return Expectations(2, ["10"] * lines, [LineContext(PARAMS, None, {}, "seq")] * lines, toy_workload(), None)


def _fed_as(gaps_ms: list[float]) -> dict:
    """A Finished's stamps for lines whose repetitions the launcher saw take `gaps_ms` each."""
    fed, arrivals, now = [], [1000], 1000
    for gap in gaps_ms:
        fed.append(now + 10)
        now += 10 + int(gap * 1e6)
        arrivals.append(now)
    return {"fed_ns": fed, "stdout_times": arrivals}


def test_the_class_comes_from_the_launchers_clock_and_the_lines_own_ns_is_only_set_beside_it():
    """A process that reports steady ns while its real repetitions alternate (issue 56)."""
    lines = [rep(j) for j in range(6)]                                # 1 ms each, on paper
    measurement, reps = judge(finished(lines, first_timed=4, feed_verdict="budget", wall_ns=100_000_000,
                                       **_fed_as([1.05, 1.6, 1.05, 1.6, 1.05, 1.6])), 0, _owing(6), 60)
    assert measurement.outcome == "ok"
    assert (reps[0].extra["steady_class"], reps[0].extra["ns_class"]) == ("no steady state", "flat")


def test_a_slow_first_repetition_booked_as_preparation_still_reads_as_slow():
    first = {**rep(0), "extra": {"prepare_ns": 9_000_000}}           # 10 ms seen, 1 ms "timed"
    lines = [first] + [rep(j) for j in range(1, 4)]
    _, reps = judge(finished(lines, first_timed=2, feed_verdict="steady", wall_ns=100_000_000,
                             **_fed_as([10.1, 1.1, 1.1, 1.1])), 0, _owing(4), 60)
    assert reps[0].extra["steady_class"] == "warm-up"
    assert reps[0].extra["first_ns"] == 10_000_000


def test_fields_the_harness_owns_are_dropped_from_every_line_with_a_note():
    forged = {**rep(0), "extra": {"others_cores": 0.0, "gap_ns": 1}}
    measurement, reps = judge(finished([forged, rep(1)]), 0, expectations(), 60)
    assert measurement.outcome == "ok" and "gap_ns, others_cores: dropped" in measurement.detail
    assert reps[0].extra.get("gap_ns") != 1


def test_threads_kept_from_the_line_before_count_for_a_repetition_only_if_they_ran_in_it():
    """tasks_kept serves a runtime's thread cache (a new unit on an ended one's thread): a thread
    alive at both lines that did not run in between did no unit's work."""
    ran, slept, ended = (7, 8), (7, 9), (7, 10)
    before = ThreadSnapshot(1000, 5000, {ran: 1000, slept: 2000, ended: 3000}, machine_forks=100)
    at = ThreadSnapshot(2000, 9000, {ran: 1500, slept: 2000, (7, 11): 50}, machine_forks=103)
    lines = [{**rep(0), "extra": {}}, {**rep(1), "extra": {}}]
    _, reps = judge(finished(lines, threads=[before, at, at]), 0, expectations(), 60)
    assert (reps[0].extra["tasks_made"], reps[0].extra["tasks_kept"]) == (3, 1)
    assert (reps[1].extra["tasks_made"], reps[1].extra["tasks_kept"]) == (0, 0)


def test_a_driven_servers_start_up_is_its_ready_lines_arrival_not_its_first_repetitions():
    from types import SimpleNamespace

    from parbench.measure.runner import _driven_startup
    from parbench.records import ProcessMeasurement, Repetition
    measurement = ProcessMeasurement(0, 10, 0, 0, 0, 0, 0, 0, "ok", "")
    reps = [Repetition(0, 0, 5, 1, "x", True, {"startup_ns": 999})]
    _driven_startup((measurement, reps), SimpleNamespace(stdout_times=[123, 456]))
    assert reps[0].extra["startup_ns"] == 123


def test_a_driven_repetition_the_load_generator_failed_is_the_cases_failure_after_a_crashs_own_reason():
    from parbench.measure.echo_loop import Failure
    from parbench.measure.runner import _driven_failure
    from parbench.records import ProcessMeasurement, Repetition
    crashed = ProcessMeasurement(0, 10, 0, 0, 0, 0, 0, 1, "crash", "exit 1: ")
    _driven_failure((crashed, []), Failure("bad-output", "repetition 0: the load generator: reset"))
    assert (crashed.outcome, crashed.detail) == ("crash", "exit 1; repetition 0: the load generator: reset")
    fine = ProcessMeasurement(0, 10, 0, 0, 0, 0, 0, 0, "ok", "")
    reps = [Repetition(0, 0, 5, 1, "x", True, {})]
    _driven_failure((fine, reps), Failure("timeout", "repetition 1: the load generator: timeout after 3 ms"))
    assert (fine.outcome, reps[0].verified) == ("timeout", False)
