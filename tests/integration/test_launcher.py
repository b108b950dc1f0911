"""The resident launcher (launcher.c through process.run_measured): one launcher serves many
runs, and each run is measured, capped and contained as if it had a launcher of its own."""
import glob
import hashlib
import os
import sys
import threading

import pytest

from parbench.measure import bench_user, process
from parbench.measure.process import MAX_LINE_BYTES, run_measured

PYTHON = sys.executable


def _launcher_pid() -> int:
    return process._local.launcher.process.pid


def test_one_launcher_serves_consecutive_runs():
    run_measured(["true"], 10, protocol=False)
    first = _launcher_pid()
    for _ in range(3):
        assert run_measured(["true"], 10, protocol=False).exit_code == 0
    assert _launcher_pid() == first


def test_a_run_measures_only_its_own_tree_not_the_runs_before_it():
    big = run_measured([PYTHON, "-c", "b = bytearray(64 << 20); b[::4096] = b'x' * len(b[::4096])"], 60,
                       protocol=False)
    small = run_measured(["true"], 10, protocol=False)
    assert big.max_rss_kb > 60 << 10
    assert small.max_rss_kb < 16 << 10, small          # the big run's peak is not carried over
    assert small.user_ns + small.sys_ns < big.user_ns + big.sys_ns


def test_no_thread_of_the_harness_reads_while_a_command_runs():
    before = threading.active_count()
    seen = []
    finished = run_measured(["sh", "-c", "sleep 0.2; echo done"], 10,
                            echo_stdout=lambda chunk: seen.append(threading.active_count()))
    assert finished.stdout_lines == ["done"] and seen == [before]


def test_the_launcher_stamps_each_line_when_it_arrives():
    finished = run_measured(["sh", "-c", "echo a; sleep 0.3; echo b"], 10)
    first, second = finished.stdout_times
    assert finished.stdout_lines == ["a", "b"]
    assert 0 <= first < 100_000_000 and 250_000_000 <= second - first < 1_000_000_000
    assert second <= finished.wall_ns


def test_stdout_is_digested_whole_and_stderr_keeps_its_tail():
    script = "import sys; sys.stdout.write('x' * 300000 + '\\n'); sys.stderr.write('e' * 100000 + 'END')"
    finished = run_measured([PYTHON, "-c", script], 30, protocol=False)
    assert finished.stdout_digest == hashlib.sha256(b"x" * 300000 + b"\n").hexdigest()
    assert finished.stderr.endswith("END") and len(finished.stderr) == process.STDERR_TAIL_BYTES


def test_a_line_longer_than_the_cap_stops_the_run_as_bad_output():
    script = f"import sys, time; sys.stdout.write('y' * {MAX_LINE_BYTES + 10}); sys.stdout.flush(); time.sleep(30)"
    finished = run_measured([PYTHON, "-c", script], 60)
    assert finished.stdout_problem and "line exceeded" in finished.stdout_problem
    assert finished.exit_code is None and finished.wall_ns < 20e9


def test_each_run_gets_its_own_directory_and_environment(tmp_path):
    finished = run_measured(["sh", "-c", 'pwd; echo "$ONLY_HERE"'], 10, cwd=str(tmp_path),
                            env={"PATH": os.environ["PATH"], "ONLY_HERE": "yes"})
    assert finished.stdout_lines == [str(tmp_path), "yes"]
    assert run_measured(["sh", "-c", 'echo "[$ONLY_HERE]"'], 10).stdout_lines == ["[]"]


def test_a_launcher_killed_by_its_command_is_replaced_for_the_next_run():
    killed = run_measured(["sh", "-c", "kill -9 $PPID; sleep 5"], 20)
    assert killed.exit_code is None and killed.timed_out
    assert run_measured(["echo", "again"], 10).stdout_lines == ["again"]


def test_the_tree_memory_counts_shared_pages_once_in_pss():
    # Four processes share 48 MiB copy-on-write: the RSS sum counts it four times, PSS once.
    script = ("import os, time; b = bytearray(48 << 20); b[::4096] = b'x' * len(b[::4096]); "
              "[os.fork() or time.sleep(1.5) or os._exit(0) for _ in range(3)]; time.sleep(1.6)")
    finished = run_measured([PYTHON, "-c", script], 60, protocol=False)
    pss, rss = finished.memory.get("tree_peak_pss_kb", 0), finished.tree_peak_rss_kb
    assert finished.exit_code == 0
    assert rss > 150 << 10 and 45 << 10 < pss < 100 << 10, (rss, pss)


# --- what the tables show of it (report/rows.py, analysis/startup.py) --------------------------
MS = 1_000_000


def _result(workload: str, walls: list[int], reps: list[tuple[int, int, dict]]):
    from parbench.analysis.stats import case_stats
    from parbench.records import Case, CaseResult, CaseRun, ProcessMeasurement, Repetition
    run = CaseRun(Case(workload, "rt", "seq", "seq", {}), "x")
    run.processes = [ProcessMeasurement(i, wall, 0, 0, 512, 0, 0, 0, "ok") for i, wall in enumerate(walls)]
    run.repetitions = [Repetition(process, rep, ns, 1, "x", True, extra) for process, (rep, ns, extra) in reps]
    return CaseResult(run, case_stats(run))


def test_the_time_split_measures_start_up_in_the_process_itself_and_never_leaves_a_negative_rest():
    from parbench.analysis.startup import time_splits
    # The noop ran slow (27 ms, a cold minute); a process that did 12 ms of work took 21 ms in all.
    noop = _result("noop", [27 * MS] * 3, [(p, (0, 1000, {})) for p in range(3)])
    stamped = {"startup_ns": 4 * MS, "warmup_ns": 3 * MS}
    work = _result("keygen", [21 * MS] * 3, [(p, (r, 3 * MS, stamped if r == 0 else {})) for p in range(3) for r in range(3)])
    split, = time_splits([noop, work])
    assert (split.boot_ns, split.work_ns, split.rest_ns) == (4 * MS, 12 * MS, 5 * MS)


def test_a_process_start_up_is_stamped_by_the_launcher_before_its_first_line():
    from parbench.measure.protocol import parse_stdout
    from parbench.measure.runner import _before_the_work
    line = '{"rep":%d,"ns":1000,"items":1,"checksum":"c","extra":{"load_ns":50000000}}'
    finished = run_measured(["sh", "-c", f"sleep 0.3; echo '{line % 0}'; echo '{line % 1}'"], 10)
    phases = _before_the_work(parse_stdout(finished.stdout_lines, finished.stdout_times, first_timed=1, repeat=1))
    assert 200 * MS < phases["startup_ns"] < finished.wall_ns - 50 * MS and phases["warmup_ns"] == 1000


def test_the_memory_column_shows_pss_and_the_cgroup_peak_where_measured():
    from parbench.report.rows import memory_text
    result = _result("keygen", [MS, MS], [(0, (0, MS, {})), (1, (0, MS, {}))])
    assert memory_text(result) == "512 KiB RSS"                     # a run stored before PSS was sampled
    result.run.processes[0].memory = {"tree_peak_pss_kb": 2048, "cgroup_peak_kb": 3072}
    result.run.processes[1].memory = {"tree_peak_pss_kb": 1024, "cgroup_peak_kb": 4096}
    assert memory_text(result) == "2 MiB PSS · 4 MiB cgroup"


def test_a_run_reports_and_stores_the_harness_time_outside_its_processes(tmp_path):
    import json
    import sqlite3

    from conftest import parbench
    db = tmp_path / "r.sqlite"
    done = parbench("exec", "-N", "-r", "5", "true", "--db", str(db), timeout=120)
    assert done.returncode == 0, done.stderr
    assert "harness overhead: " in done.stdout and "outside its 5 processes" in done.stdout
    store = sqlite3.connect(db)
    walls = store.execute("SELECT SUM(wall_ns) FROM processes").fetchone()[0]
    cost = json.loads(store.execute("SELECT result_json FROM analyses WHERE kind = 'harness-overhead'").fetchone()[0])
    assert cost["processes"] == 5 and cost["measured_ns"] == walls
    assert 0 < cost["overhead_ns"] == cost["elapsed_ns"] - walls - cost["between_tables_ns"]


def test_a_run_says_how_busy_the_rest_of_the_machine_was():
    import subprocess
    hog = subprocess.Popen([PYTHON, "-c", "while True: pass"])
    try:
        busy = run_measured(["sleep", "0.5"], 10, protocol=False)
    finally:
        hog.kill()
        hog.wait()
    assert busy.machine_load["others_cores"] >= 0.5, busy.machine_load      # the hog's core, not sleep's
    assert busy.machine_load["steal_ns"] >= 0


def test_a_kill_group_kept_for_the_next_runs_holds_nothing_of_the_run_before():
    escaped = run_measured(["sh", "-c", "setsid sleep 30 & echo started"], 10, protocol=False)
    assert escaped.memory["leftover"] >= 1
    later = [run_measured(["true"], 10, protocol=False) for _ in range(16)]   # every slot used again
    assert [run.memory["leftover"] for run in later] == [0] * 16


def test_an_ending_launcher_removes_the_cgroups_it_kept():
    run_measured(["true"], 10, protocol=False)
    launcher = process._local.launcher.process
    launcher.stdin.close()
    assert launcher.wait(5) == 0
    assert glob.glob(f"/sys/fs/cgroup/unified/parbench/{launcher.pid}-*") == []
    assert glob.glob(f"/sys/fs/cgroup/memory/**/parbench-{launcher.pid}-*", recursive=True) == []


def test_as_root_a_run_becomes_the_benchmark_user_that_reads_root_s_folders_and_writes_only_its_own(tmp_path):
    user = bench_user.for_run(as_root=False)
    if user is None:
        pytest.skip("only root hands its runs to the benchmark user")
    secret = tmp_path / "root-only"
    secret.mkdir(mode=0o700)
    (secret / "input").write_text("readable\n")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    script = ('id -u; cat "$1/input"; echo x > "$HOME/cache" && echo home-ok; '
              '(echo x > "$1/input") 2>/dev/null || echo no-write; '
              'kill -0 "$PPID" 2>/dev/null || echo no-signal')
    finished = run_measured(["sh", "-c", script, "sh", str(secret)], 10, env=user.take(scratch), user=user,
                            protocol=False)
    assert finished.stdout_head.split() == [str(user.uid), "readable", "home-ok", "no-write", "no-signal"], \
        finished.stderr
    assert (secret / "input").read_text() == "readable\n"
