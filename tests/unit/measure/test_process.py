"""process.py: the request the launcher reads, the frames it answers with, what the harness makes of
an answer, and real runs of `sh` under the resident launcher (built from launcher.c with gcc)."""
import hashlib
import json
import os
import signal
import subprocess
import sys
import time

import pytest

from parbench.analysis import steady_state
from parbench.measure import process
from parbench.measure.process import LauncherMissing, ThreadSnapshot, run_measured

MS = 1_000_000


# --- the request ---------------------------------------------------------------------------------
def fields_of(request: bytes) -> list[bytes]:
    """The NUL-terminated fields of a request, after checking its 10-digit length."""
    length, payload = int(request[:10]), request[10:]
    assert length == len(payload) and payload.endswith(b"\0")
    return payload[:-1].split(b"\0")


def test_a_request_carries_its_numbers_then_feed_hide_writable_directory_argv_and_environment():
    fields = fields_of(process._request(["sh", "-c", "echo hi"], 1.5, 2048, {"A": "1", "B": "x=y"}, "/tmp",
                                        True, False, feed=[3, 4], hide=["/a", "/b"], writable=["/c", "/d"]))
    assert fields[:5] == [b"1500", b"2048", str(process.SAMPLE_MS).encode(), b"1", b"0"]
    assert fields[10:12] == [b"-1", b"-1"]                      # no user: the launcher's own
    assert fields[12:16] == [b"3 4", b"/a\n/b", b"/c\n/d", b"/tmp"]
    assert fields[16:20] == [b"3", b"sh", b"-c", b"echo hi"]
    assert fields[20:] == [b"2", b"A=1", b"B=x=y"]


def test_a_request_without_an_environment_sends_the_harness_own_and_its_directory():
    fields = fields_of(process._request(["true"], 1, None, None, None, False, True))
    envc = fields.index(b"true") + 1
    assert int(fields[envc]) == len(os.environb) == len(fields) - envc - 1
    assert fields[3:5] == [b"0", b"1"] and fields[12:15] == [b"", b"", b""]
    assert fields[15] == os.getcwd().encode()


def test_a_null_byte_in_an_argument_or_the_environment_is_refused():
    with pytest.raises(ValueError, match="embedded null byte"):
        process._request(["echo", "a\0b"], 1, None, {}, "/", True, False)
    with pytest.raises(ValueError, match="embedded null byte"):
        process._request(["echo"], 1, None, {"K": "v\0w"}, "/", True, False)


# --- the launcher's frames -------------------------------------------------------------------------
@pytest.fixture
def pipe():
    read, write = os.pipe()
    yield read, write
    for fd in (read, write):
        try:
            os.close(fd)
        except OSError:
            pass


def test_frames_are_read_whole_whatever_pieces_they_arrive_in(pipe):
    read, write = pipe
    os.write(write, b"cgroup 4\n/a/b" + b"stdout 4\nx\ny\n")
    os.write(write, b"resu")
    answer = process._Answer(read, time.monotonic() + 5)
    assert answer.frame() == ("cgroup", b"/a/b")
    assert answer.frame() == ("stdout", b"x\ny\n")
    os.write(write, b"lt 2\n{}")
    assert answer.frame() == ("result", b"{}")


def test_an_answer_that_does_not_come_by_the_deadline_is_a_timeout(pipe):
    read, write = pipe
    os.write(write, b"result 10\n{")
    with pytest.raises(TimeoutError):
        process._Answer(read, 0).frame()


def test_a_launcher_that_closed_its_end_mid_frame_is_an_end_of_file(pipe):
    read, write = pipe
    os.write(write, b"stderr 99\nabc")
    os.close(write)
    with pytest.raises(EOFError):
        process._Answer(read, time.monotonic() + 5).frame()


# --- what an answer becomes ------------------------------------------------------------------------
def answer(result: dict, **frames: bytes) -> dict[str, bytes]:
    return {"result": json.dumps(result).encode(), **frames}


def test_an_answer_becomes_the_run_s_measurements():
    frames = answer({"status": 3 << 8, "wall_ns": 5 * MS, "user_ns": 2 * MS, "sys_ns": MS, "max_rss_kb": 900,
                     "tree_peak_rss_kb": 1500, "nvcsw": 4, "nivcsw": 5, "stdout_digest": "ab", "cpu_method": "threads",
                     "memory_method": "proc", "memory_limit_kb": -1, "leftover": 0, "hidden": 1},
                    stdout=b"a\nb\n", times=b"10 20", head=b"a\nb\n", stderr=b"oops")
    finished = process._finished(frames, 0)
    assert (finished.exit_code, finished.signal, finished.timed_out) == (3, None, False)
    assert finished.stdout_lines == ["a", "b"] and finished.stdout_times == [10, 20]
    assert (finished.wall_ns, finished.user_ns, finished.sys_ns) == (5 * MS, 2 * MS, MS)
    assert (finished.max_rss_kb, finished.tree_peak_rss_kb) == (900, 1500)
    assert (finished.voluntary_switches, finished.involuntary_switches) == (4, 5)
    assert finished.stdout_digest == "ab" and finished.stdout_head == "a\nb\n" and finished.stderr == "oops"
    assert finished.memory == {"memory_method": "proc", "leftover": 0}          # -1: not measured, left out
    assert finished.cpu_method == "threads" and finished.hidden


def test_a_signalled_run_has_its_signal_and_no_exit_code():
    finished = process._finished(answer({"status": signal.SIGKILL, "wall_ns": 1}), 0)
    assert finished.signal == signal.SIGKILL and finished.exit_code is None


def test_a_run_that_timed_out_or_was_stopped_has_no_exit_code():
    assert process._finished(answer({"status": 0, "timed_out": 1}), 0).exit_code is None
    assert process._finished(answer({"status": 0, "stopped_by_signal": 1}), 0).exit_code is None


def test_a_run_stopped_for_its_output_keeps_no_lines_and_says_which_cap():
    frames = answer({"status": 0, "stdout_problem": "lines"}, stdout=b"x\n" * 3, times=b"1 2 3")
    finished = process._finished(frames, 0)
    assert finished.stdout_problem == process.STDOUT_PROBLEMS["lines"]
    assert finished.stdout_lines == [] and finished.stdout_times == [] and finished.exit_code is None


def test_a_launcher_that_died_without_an_answer_is_a_timed_out_run_of_the_harness_own_wall():
    for frames in ({}, {"result": b"not json"}):
        finished = process._finished(frames, 0)
        assert finished.timed_out and finished.exit_code is None and finished.wall_ns > 0
        assert finished.memory == {"memory_method": "none"}
        assert finished.stdout_digest == hashlib.sha256(b"").hexdigest()


def test_the_tree_peak_is_never_below_the_largest_process():
    assert process._finished(answer({"max_rss_kb": 800, "tree_peak_rss_kb": 0}), 0).tree_peak_rss_kb == 800


def test_an_unfinished_last_line_is_kept_and_extra_times_are_dropped():
    assert process._lines({"stdout": b"a\nb", "times": b"5 6 7"}) == (["a", "b"], [5, 6])
    assert process._lines({"stdout": b""}) == ([], [])


def test_the_rest_of_the_machine_is_what_was_busy_beyond_the_tree():
    load = process._machine_load({"machine_busy_ns": 30 * MS, "machine_steal_ns": MS, "wall_ns": 10 * MS,
                                  "user_ns": 8 * MS, "sys_ns": 2 * MS})
    assert load == {"steal_ns": MS, "others_cores": 2.0}
    assert process._machine_load({"machine_busy_ns": MS, "machine_steal_ns": 0, "wall_ns": MS,
                                  "user_ns": 2 * MS})["others_cores"] == 0
    assert process._machine_load({"machine_busy_ns": -1, "machine_steal_ns": 0, "wall_ns": MS}) == {}


def test_thread_snapshots_are_read_one_per_line_and_a_missing_tree_time_is_none():
    snapshots = process._snapshots(b"100 5000 10.10:3000 10.11:2000\n200 -1 10.10:4000\n")
    assert snapshots == [ThreadSnapshot(100, 5000, {(10, 10): 3000, (10, 11): 2000}),
                         ThreadSnapshot(200, None, {(10, 10): 4000})]
    with_peak = process._snapshots(b"300 7000 peak=61 10.10:5000\n")
    assert with_peak == [ThreadSnapshot(300, 7000, {(10, 10): 5000}, peak_tasks=61)]
    with_forks = process._snapshots(b"400 8000 peak=61 forks=123456 10.10:6000\n400 8000 forks=9 10.10:6000\n")
    assert with_forks == [ThreadSnapshot(400, 8000, {(10, 10): 6000}, peak_tasks=61, machine_forks=123456),
                          ThreadSnapshot(400, 8000, {(10, 10): 6000}, machine_forks=9)]
    with_waits = process._snapshots(b"500 9000 wait=77 10.10:6000:1500 10.11:10\n")
    assert with_waits == [ThreadSnapshot(500, 9000, {(10, 10): 6000, (10, 11): 10}, waits={(10, 10): 1500},
                                         launcher_wait_ns=77)]


# --- building the launcher ---------------------------------------------------------------------------
@pytest.fixture
def fresh_launcher(monkeypatch, tmp_path):
    """launcher() asked afresh, with its cache in tmp_path; the session's own afterwards."""
    monkeypatch.setenv("PARBENCH_CACHE", str(tmp_path / "inputs"))
    process.launcher.cache_clear()
    yield tmp_path / "bin" / "parbench-launch"
    process.launcher.cache_clear()


def test_without_a_c_compiler_the_launcher_is_missing_and_says_how_to_install_one(fresh_launcher, monkeypatch):
    monkeypatch.setenv("PATH", str(fresh_launcher.parent.parent))
    with pytest.raises(LauncherMissing, match="apt-get install -y gcc"):
        process.launcher()


def test_a_launcher_built_after_its_source_changed_is_used_without_a_compiler(fresh_launcher, monkeypatch):
    fresh_launcher.parent.mkdir(parents=True)
    fresh_launcher.write_text("")
    monkeypatch.setenv("PATH", str(fresh_launcher.parent.parent))
    assert process.launcher() == str(fresh_launcher)


# --- real runs under the resident launcher ---------------------------------------------------------
def test_a_run_returns_its_lines_stderr_and_exit_code():
    finished = run_measured(["sh", "-c", "echo one; echo two; echo err >&2; exit 3"], 10)
    assert finished.stdout_lines == ["one", "two"] and len(finished.stdout_times) == 2
    assert finished.stderr == "err\n" and finished.exit_code == 3 and not finished.timed_out
    assert finished.stdout_digest == hashlib.sha256(b"one\ntwo\n").hexdigest()
    assert 0 < finished.wall_ns < 5e9 and finished.max_rss_kb > 0


def test_without_the_protocol_the_output_is_digested_and_only_its_head_kept():
    finished = run_measured(["sh", "-c", "printf 'a\\nb'"], 10, protocol=False)
    assert finished.stdout_lines == [] and finished.stdout_head == "a\nb"
    assert finished.stdout_digest == hashlib.sha256(b"a\nb").hexdigest()


def test_echo_hands_the_output_over_as_it_comes():
    chunks = []
    finished = run_measured(["sh", "-c", "echo a; echo b"], 10, echo_stdout=chunks.append)
    assert b"".join(chunks) == b"a\nb\n" and finished.stdout_lines == ["a", "b"]


def test_a_run_past_its_timeout_is_stopped_with_its_whole_tree():
    finished = run_measured(["sh", "-c", "sleep 5 & sleep 5; echo never"], 0.2)
    assert finished.timed_out and finished.exit_code is None and finished.stdout_lines == []
    assert 0.2e9 <= finished.wall_ns < 2e9


def test_a_run_killed_by_a_signal_reports_that_signal():
    finished = run_measured(["sh", "-c", "kill -TERM $$"], 10)
    assert finished.signal == signal.SIGTERM and finished.exit_code is None and not finished.timed_out


def test_a_command_that_cannot_be_started_exits_127_and_says_why():
    finished = run_measured(["/nonexistent/parbench-command"], 10)
    assert finished.exit_code == 127 and "/nonexistent/parbench-command" in finished.stderr


def test_a_flood_of_lines_stops_the_run_as_bad_output():
    finished = run_measured(["sh", "-c", f"yes | head -n {process.MAX_STDOUT_LINES + 10}"], 30)
    assert finished.stdout_problem == process.STDOUT_PROBLEMS["lines"]
    assert finished.stdout_lines == [] and finished.exit_code is None


def test_a_run_over_its_memory_limit_is_stopped_as_out_of_memory():
    # It holds the memory, so that a launcher without a cgroup, which samples the tree, sees it too.
    script = "import time; b = bytearray(200 << 20); b[::4096] = b'x' * len(b[::4096]); time.sleep(5)"
    finished = run_measured([sys.executable, "-c", script], 30, memory_limit_kb=50 << 10, protocol=False)
    assert finished.out_of_memory and finished.exit_code is None, finished.memory
    assert finished.memory["memory_limit_kb"] == 50 << 10 and finished.wall_ns < 4e9


READY = """echo '{"ready":"none"}'"""


def protocol_script(*lines: str) -> list[str]:
    """A shell process that prints the ready line, then for each variant it reads the next of
    `lines` ($v is the variant, $j the repetition), until stdin ends."""
    body = " ".join(f'read v || exit 0; echo "{line}";' for line in lines)
    return ["sh", "-c", f"{READY}; j=0; {body} read v && echo extra-variant-$v; exit 0"]


def rep_line(j: int, ns: str = "1000") -> str:
    return '{\\"rep\\":' + str(j) + ',\\"ns\\":' + ns + ',\\"got\\":$v}'


def test_each_variant_of_the_feed_is_written_after_the_line_before_it():
    finished = run_measured(protocol_script(rep_line(0), rep_line(1)), 10, feed=[7, 9])
    assert finished.stdout_lines == ['{"ready":"none"}', '{"rep":0,"ns":1000,"got":7}', '{"rep":1,"ns":1000,"got":9}']
    ready, first, second = finished.stdout_times
    assert len(finished.fed_ns) == 2
    assert ready <= finished.fed_ns[0] <= first <= finished.fed_ns[1] <= second
    assert len(finished.threads) == 3 and all(s.threads for s in finished.threads)
    assert finished.protocol_problem == "" and finished.feed_verdict == "fixed"


def test_each_line_s_snapshot_holds_how_long_every_thread_and_the_launcher_waited_for_a_core():
    finished = run_measured(protocol_script(rep_line(0), rep_line(1)), 10, feed=[7, 9])
    assert all(s.waits.keys() == s.threads.keys() for s in finished.threads)
    assert all(s.launcher_wait_ns is not None and 0 <= s.launcher_wait_ns < 1e9 for s in finished.threads)


def test_a_line_that_is_not_the_repetitions_own_earns_no_variant_and_is_quoted():
    for odd in ("", '{\\"rep\\":1,\\"ns\\":5}', '{\\"x\\":{\\"rep\\":0},\\"ns\\":5}', "noise"):
        finished = run_measured(protocol_script(odd, rep_line(1)), 10, feed=[7, 9])
        assert len(finished.fed_ns) == 1, odd                   # variant 9 was never written
        assert finished.feed_verdict == "protocol"
        assert finished.protocol_problem.startswith("stdout line 2 is not repetition 0's line: "), finished.protocol_problem


def test_a_blank_line_does_not_count_as_a_repetitions_line():
    finished = run_measured(["sh", "-c", f"{READY}; read v; echo; echo; read v && echo got-$v"], 10, feed=[7, 9, 11])
    assert len(finished.fed_ns) == 1 and "extra-variant" not in " ".join(finished.stdout_lines)
    assert "got-" not in " ".join(finished.stdout_lines)


def test_a_fixed_policy_writes_exactly_warmup_plus_timed_variants_and_then_closes_stdin():
    lines = [rep_line(j) for j in range(6)]
    finished = run_measured(protocol_script(*lines), 10, feed=list(range(10, 20)), policy=process.FeedPolicy(2, 3))
    assert len(finished.fed_ns) == 5 and len(finished.stdout_lines) == 6
    assert (finished.feed_verdict, finished.first_timed, finished.repetitions_seen) == ("fixed", 2, 5)


def paced_script(seconds: list[float], ns: list[str]) -> list[str]:
    """A Python process (no fork per repetition, whose wait the launcher could not see once the
    child ended) whose repetition j takes seconds[j] as the launcher sees it and says ns[j]."""
    code = ("import json, sys, time\n"
            f"plan = {list(zip(seconds, map(int, ns)))!r}\n"
            "print(json.dumps({'ready': 'none'}), flush=True)\n"
            "for j, (s, n) in enumerate(plan):\n"
            "    if not sys.stdin.readline(): break\n"
            "    time.sleep(s)\n"
            "    print(json.dumps({'rep': j, 'ns': n}), flush=True)\n")
    return [sys.executable, "-c", code]


def test_an_auto_policy_stops_at_the_first_steady_window_of_the_launchers_own_clock():
    seconds = [0.15, 0.1, 0.07, 0.05, 0.05, 0.05, 0.05, 0.05]
    finished = run_measured(paced_script(seconds, ["1000"] * 8), 10, feed=list(range(10, 30)),
                            policy=process.FeedPolicy(None, 2, 5.0, 0.10))
    # 50, 50, 50 ms lie within ±10 % of their median: repetitions 4 and 5 are the timed ones
    assert (finished.feed_verdict, finished.first_timed, finished.repetitions_seen) == ("steady", 4, 6)
    assert len(finished.launcher_series) == 6 and all(45e6 < v < 80e6 for v in finished.launcher_series[3:])


def test_a_fresh_launcher_s_first_run_takes_no_wait_from_before_its_repetitions():
    """Its first snapshot once took the wait table's unused slots for live ones and recorded no
    thread, so the next line counted a thread's whole wait since fork: a 60 ms repetition read 0."""
    code = ("import json, sys\nfrom parbench.measure import process\n"
            f"f = process.run_measured({paced_script([0.05] * 3, ['1000'] * 3)!r}, 10, feed=[1, 2, 3], "
            "policy=process.FeedPolicy(0, 3))\nprint(json.dumps(f.launcher_series))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    series = json.loads(done.stdout)
    assert len(series) == 3 and all(v >= 45e6 for v in series), (series, done.stderr)


def test_an_auto_policy_is_not_steered_by_the_ns_a_process_reports():
    """Issue 56: a process that kept its ns unsettled on purpose chose when the window settled, and
    so which repetitions were timed; one that reported steady ns was timed at once."""
    unsettled_on_paper = run_measured(paced_script([0.05] * 6, ["1000", "3000"] * 3), 10, feed=list(range(10, 30)),
                                      policy=process.FeedPolicy(None, 2, 5.0, 0.10))
    # steady within the first repetitions (1 at once, later where a busy machine slowed a `sleep`),
    # not at the budget its ns alone would have run it to
    assert unsettled_on_paper.feed_verdict == "steady" and unsettled_on_paper.first_timed <= 3
    steady_on_paper = run_measured(paced_script([0.01, 0.03] * 4, ["1000"] * 8), 10, feed=list(range(10, 18)),
                                   policy=process.FeedPolicy(None, 2, 5.0, 0.10))
    assert (steady_on_paper.feed_verdict, steady_on_paper.first_timed, steady_on_paper.repetitions_seen) == \
        ("budget", 6, 8)


def test_the_launcher_stops_where_the_harness_s_rule_first_says_steady():
    """launcher.c's `steady` and steady_state.stops are one rule: the launcher stops on the first
    prefix of its own series that the Python rule calls steady (here one outlier of five)."""
    finished = run_measured(paced_script([0.03, 0.03, 0.07, 0.03, 0.03, 0.03, 0.03, 0.03], ["1000"] * 8), 10,
                            feed=list(range(10, 30)), policy=process.FeedPolicy(None, 2, 5.0, 0.10))
    series = finished.launcher_series
    assert finished.feed_verdict == "steady" and len(series) == finished.repetitions_seen
    assert steady_state.stops(series, 2, 0.10)
    assert not any(steady_state.stops(series[:n], 2, 0.10) for n in range(1, len(series)))


def test_a_first_repetition_longer_than_the_budget_leaves_room_for_a_steady_state():
    """The budget counts repetitions as well as seconds (issue 56: Java's tuned kernel took 0.8 s
    in its first repetition, and a 0.5 s budget allowed it no second)."""
    finished = run_measured(paced_script([0.4] + [0.05] * 7, ["1000"] * 8), 10, feed=list(range(10, 30)),
                            policy=process.FeedPolicy(None, 2, 0.3, 0.10))
    assert finished.feed_verdict == "steady" and finished.repetitions_seen <= 6


def test_an_auto_policy_stops_when_its_time_budget_is_spent():
    line = '{\\"rep\\":$j,\\"ns\\":1000}'
    never_settles = "sleep 0.0$((2 + j % 2 * 5))"                  # 20 and 70 ms in turn
    script = f"{READY}; j=0; while read v; do {never_settles}; echo \"{line}\"; j=$((j+1)); done"
    finished = run_measured(["sh", "-c", script], 10, feed=list(range(100, 200)),
                            policy=process.FeedPolicy(None, 2, 0.2, 0.10))
    assert finished.feed_verdict == "budget" and 3 <= finished.repetitions_seen <= 8     # not the 100 it was given


def test_the_tally_counts_each_run_and_its_wall():
    runs, wall = process.measured_so_far()
    finished = run_measured(["true"], 10)
    assert process.measured_so_far() == (runs + 1, wall + finished.wall_ns)


def test_a_cgroup_that_is_already_gone_is_skipped(tmp_path):
    process.kill_cgroups([str(tmp_path / "gone")])
    assert not (tmp_path / "gone").exists()
