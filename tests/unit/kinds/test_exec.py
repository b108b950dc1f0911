"""kinds/exec/__init__.py: hyperfine's rule for how many runs, and the exec kind: its refusals at
once, its shell start-up measured before its runs, its record and its report."""
import io

import pytest
from rich.console import Console
from types import SimpleNamespace

from parbench.errors import PipelineError
from parbench.kinds.exec import ExecError, ExecKind, ExecOptions, settings_for
from parbench.kinds.exec.runner import ExecRunner
from parbench.measure.runner import Settings

SETTINGS = Settings(processes=3, warmup=0, repeat=1, timeout=10)


def test_runs_fixes_the_count_exactly_and_asks_for_no_minimum_time():
    s = settings_for(5, None, None, 10, None, "interleaved", 1)
    assert (s.min_processes, s.processes, s.min_time) == (5, 5, 0.0)


def test_by_default_at_least_ten_runs_and_three_seconds():
    s = settings_for(None, None, None, 10, None, "interleaved", 1)
    assert (s.min_processes, s.min_time) == (10, 3.0) and s.processes >= 10 ** 6


def test_max_runs_alone_lowers_the_minimum_to_itself():
    s = settings_for(None, None, 4, 10, None, "interleaved", 1)
    assert (s.min_processes, s.processes) == (4, 4)


def test_without_time_to_fill_the_minimum_is_all_that_runs():
    s = settings_for(None, 3, None, 10, None, "interleaved", 1, min_time=0)
    assert (s.min_processes, s.processes) == (3, 3)


def test_a_minimum_above_the_maximum_is_refused_in_hyperfines_words():
    with pytest.raises(ExecError, match="min is larger than max"):
        settings_for(None, 5, 2, 10, None, "interleaved", 1)


def test_the_settings_carry_the_timeout_memory_limit_order_and_seed():
    s = settings_for(2, None, None, 7.5, 1024, "sequential", 9)
    assert (s.timeout, s.memory_limit_kb, s.order, s.seed, s.warmup, s.repeat) == (7.5, 1024, "sequential", 9, 0, 1)


def test_a_command_line_hyperfine_refuses_is_refused_when_the_kind_is_made():
    with pytest.raises(ExecError, match="Too many --command-name"):
        ExecKind(ExecOptions(["true"], names=["a", "b"]), SETTINGS, 0, {})
    with pytest.raises(ExecError, match="--ignore-failure"):
        ExecKind(ExecOptions(["true"], ignore_failure="x"), SETTINGS, 0, {})


def test_configure_sets_the_runner_its_cases_and_a_record_with_the_options():
    kind = ExecKind(ExecOptions(["true", "false"], shell="none"), SETTINGS, 0, {"style": "basic"})
    invocation = SimpleNamespace()
    kind.configure(invocation)
    assert isinstance(invocation.runner, ExecRunner) and [c.model for c in invocation.cases] == ["true", "false"]
    options = invocation.record.options
    assert invocation.record.kind == "exec" and options["style"] == "basic" and options["commands"] == ["true", "false"]
    assert options["shell_startup"] == {"wall_ns": 0, "user_ns": 0, "sys_ns": 0, "runs": 0}


def test_configure_measures_the_shells_start_up_first():
    kind = ExecKind(ExecOptions(["true"]), SETTINGS, 0, {})
    invocation = SimpleNamespace()
    kind.configure(invocation)
    assert invocation.runner.shell_startup.runs == 50 and invocation.record.options["shell_startup"]["wall_ns"] > 0


def test_a_shell_that_cannot_start_stops_the_pipeline_with_exit_1():
    kind = ExecKind(ExecOptions(["true"], shell="false"), SETTINGS, 0, {})
    with pytest.raises(PipelineError, match="Could not measure shell") as stopped:
        kind.configure(SimpleNamespace())
    assert stopped.value.code == 1


def test_the_kind_has_one_round_of_every_command_and_no_analyses():
    kind = ExecKind(ExecOptions(["true"]), SETTINGS, 0, {})
    invocation = SimpleNamespace(cases=["a", "b"])
    assert list(kind.rounds(invocation)) == [["a", "b"]] and kind.analyses(None) == []
    assert (kind.name, kind.of_workloads, kind.resumable) == ("exec", False, False)


def test_style_none_prints_no_report_at_all():
    kind = ExecKind(ExecOptions(["true"]), SETTINGS, 0, {"style": "none"})
    out = io.StringIO()
    kind.print_result(SimpleNamespace(output=SimpleNamespace(console=Console(file=out))))
    assert out.getvalue() == ""
