"""kinds/exec/runner.py: exec's commands run as real `sh` processes under the launcher; the shell's
start-up subtracted, exits judged by --ignore-failure, output by --expect / --expect-same, and the
helpers around the runs."""
import pytest

from parbench.kinds.exec.commands import ExecOptions, commands_for
from parbench.kinds.exec.runner import ExecRunner, ShellStartup, digest_of_text, measure_shell_startup, unique_cases
from parbench.measure.runner import Settings

SETTINGS = Settings(processes=3, warmup=0, repeat=1, timeout=10)


def runner(*commands: str, warmup: int = 0, startup: ShellStartup = ShellStartup(), **options) -> ExecRunner:
    exec_options = ExecOptions(list(commands), **options)
    return ExecRunner(commands_for(exec_options), exec_options, SETTINGS, warmup, startup)


def one(r: ExecRunner, index: int = 0, case=None):
    return r.one_process(case or r.cases[0], index, 0, 1)


def test_a_run_that_exits_0_is_one_verified_repetition_of_its_wall_time():
    measurement, (rep,) = one(runner("echo hello", output=["pipe"]))
    assert measurement.outcome == "ok" and measurement.exit_code == 0
    assert rep.verified and rep.ns == measurement.wall_ns and rep.checksum == digest_of_text("hello")[:16]
    assert rep.extra["output_read"] and rep.extra["stdout_bytes"] == len("hello\n")


def test_output_null_is_the_null_device_unread_as_hyperfines_default(tmp_path):
    where = tmp_path / "where"
    measurement, (rep,) = one(runner(f"where=$(readlink /proc/$$/fd/1); echo $where > {where}; head -c 3000000 /dev/zero"))
    assert where.read_text().strip() == "/dev/null"
    assert measurement.outcome == "ok" and rep.verified and rep.checksum == ""
    assert rep.extra["output_read"] is False and rep.extra["stdout_bytes"] == 0


def test_a_check_of_the_output_reads_it_under_output_null_too():
    for check in ({"expect": "hello"}, {"expect_same": True}, {"check": "echo hello"}):
        r = runner("echo hello", **check)
        assert r.verify(r.cases[0]) is None
        measurement, (rep,) = one(r)
        assert measurement.outcome == "ok" and rep.extra["output_read"], check
        assert rep.checksum == digest_of_text("hello")[:16]
    measurement, _ = one(runner("echo bye", expect="hello"))
    assert measurement.outcome == "wrong-checksum"


def test_the_shells_start_up_is_subtracted_and_floored_at_zero():
    measurement, (rep,) = one(runner("true", startup=ShellStartup(10 ** 12, 10 ** 12, 10 ** 12, 50)))
    assert rep.ns == 0 and rep.extra["user_ns"] == 0 and rep.extra["sys_ns"] == 0
    assert rep.extra["shell_startup_ns"] == 10 ** 12 and measurement.wall_ns > 0


def test_a_non_zero_exit_is_a_crash_unless_ignored():
    measurement, (rep,) = one(runner("exit 3"))
    assert measurement.outcome == "crash" and "exit 3" in measurement.detail and not rep.verified
    assert one(runner("exit 3", ignore_failure="3"))[0].outcome == "ok"
    assert one(runner("exit 3", ignore_failure="1,2"))[0].outcome == "crash"
    assert one(runner("exit 3", ignore_failure="all-non-zero"))[0].outcome == "ok"


def test_a_signal_is_ignored_only_by_all_non_zero_never_by_a_list_of_codes():
    assert one(runner("kill -9 $$", ignore_failure="9,137"))[0].outcome == "crash"
    assert one(runner("kill -9 $$", ignore_failure="all-non-zero"))[0].outcome == "ok"


def test_expect_checks_every_runs_output_stripped():
    assert one(runner("echo '  42 '", expect="42"))[0].outcome == "ok"
    measurement, _ = one(runner("echo 41", expect="42"))
    assert measurement.outcome == "wrong-checksum" and "--expect" in measurement.detail
    assert runner("true", expect="42").expected(None) == digest_of_text("42")


def test_expect_same_fails_a_run_whose_output_differs_from_the_first():
    r = runner('echo "$HYPERFINE_ITERATION"', expect_same=True)
    assert one(r, 0)[0].outcome == "ok"
    assert one(r, 1)[0].outcome == "wrong-checksum"


def test_without_expect_same_a_varying_output_is_still_ok():
    r = runner('echo "$HYPERFINE_ITERATION"')
    assert [one(r, i)[0].outcome for i in range(2)] == ["ok", "ok"]


def test_a_timed_out_run_is_killed_and_says_after_how_long():
    r = runner("sleep 5")
    r.settings = Settings(processes=1, warmup=0, repeat=1, timeout=0.05)
    measurement, _ = one(r)
    assert measurement.outcome == "timeout" and "0.05 s" in measurement.detail


def test_warm_ups_run_after_setup_are_untimed_and_a_failing_one_fails_the_case(tmp_path):
    log = tmp_path / "log"
    r = runner(f"echo run >> {log}", warmup=2, setup=f"echo setup >> {log}")
    assert r.verify(r.cases[0]) is None
    assert log.read_text().split() == ["setup", "run", "run"]
    failed = runner("exit 4", warmup=1)
    measurement = failed.verify(failed.cases[0])
    assert measurement.outcome == "crash" and measurement.detail.startswith("in a warm-up run")


def test_a_warm_up_run_gives_no_repetition_and_names_its_iteration(tmp_path):
    r = runner(f'echo "$HYPERFINE_ITERATION" > {tmp_path / "it"}')
    assert r.one_process(r.cases[0], -1, 0, 1, warm_up=True)[1] == []
    assert (tmp_path / "it").read_text() == "warmup-0\n"


def test_prepare_and_conclude_run_around_each_run_with_its_values(tmp_path):
    log = tmp_path / "log"
    r = runner(f"echo run {{n}} >> {log}", parameter_lists=[("n", ["7"])],
               prepare=[f"echo prepare {{n}} >> {log}"], conclude=[f"echo conclude {{n}} >> {log}"])
    one(r)
    assert log.read_text().splitlines() == ["prepare 7", "run 7", "conclude 7"]


def test_a_failing_helper_fails_the_case_and_names_itself():
    measurement, reps = one(runner("true", prepare=["exit 5"]))
    assert reps == [] and measurement.outcome == "crash"
    assert measurement.detail == "The prepare command terminated with a non-zero exit code (5): exit 5"
    failed = runner("true", setup="exit 6")
    assert "The setup command" in failed.verify(failed.cases[0]).detail


def test_a_failing_helpers_message_shows_the_values_it_ran_with_not_the_placeholders():
    r = runner("true", parameter_lists=[("count", ["7"])], prepare_once="exit 4; echo {count}")
    assert r.verify(r.cases[0]).detail == \
        "The prepare-once command terminated with a non-zero exit code (4): exit 4; echo 7"
    measurement, _ = one(runner("true", parameter_lists=[("count", ["8"])], prepare=["exit 5 {count}"]))
    assert measurement.detail.endswith("(5): exit 5 8")


def test_prepare_once_and_check_are_shell_lines_under_no_shell_too(tmp_path):
    # -N times the commands without a shell; the untimed helpers that make inputs keep theirs,
    # so the documented `head -c {size} big > in.{size}` works beside -N.
    r = runner(f"cat {tmp_path}/in.{{size}}", shell="none", parameter_lists=[("size", ["3"])],
               prepare_once=f"printf abcdef | head -c {{size}} > {tmp_path}/in.{{size}}",
               check="printf abc | cat")
    assert r.verify(r.cases[0]) is None
    assert (tmp_path / "in.3").read_text() == "abc"
    assert one(r)[0].outcome == "ok"


def test_cleanup_runs_once_per_command_however_often_its_group_finishes(tmp_path):
    log = tmp_path / "log"
    r = runner("true", "false", cleanup=f"echo cleanup >> {log}")
    r.group_finished(r.cases)
    r.group_finished(r.cases)
    assert log.read_text().split() == ["cleanup", "cleanup"]


def test_an_output_file_holds_the_last_runs_output(tmp_path):
    target = tmp_path / "out"
    r = runner('echo "$HYPERFINE_ITERATION"', output=[str(target)])
    one(r, 0), one(r, 1)
    assert target.read_text() == "1\n"


def test_the_same_command_twice_is_told_apart_by_its_benchmark_number():
    cases = unique_cases(commands_for(ExecOptions(["true", "true", "false"])))
    assert [c.model for c in cases] == ["true #1", "true #2", "false"]


def test_a_named_command_keeps_its_command_line_as_its_note():
    case, = runner("sleep 0", names=["nap"]).cases
    assert (case.model, case.note, case.workload, case.family) == ("nap", "sleep 0", "exec", "command")


def test_the_shells_start_up_is_the_mean_of_its_empty_runs_and_none_without_a_shell():
    startup = measure_shell_startup("sh", SETTINGS)
    assert startup.runs == 50 and startup.wall_ns > 0
    assert measure_shell_startup("none", SETTINGS) == ShellStartup()


def test_a_shell_that_cannot_run_an_empty_command_is_refused():
    with pytest.raises(RuntimeError, match="Could not measure shell execution time"):
        measure_shell_startup("false", SETTINGS)


def test_output_null_leaves_the_command_no_descriptor_but_its_three(tmp_path):
    # /dev/null is stdout itself, not a stray descriptor beside it the program would inherit.
    listing = tmp_path / "fds"
    one(runner(f"ls /proc/self/fd > {listing}"))
    assert sorted(int(fd) for fd in listing.read_text().split()) == [0, 1, 2, 3]     # 3: ls's own listing
