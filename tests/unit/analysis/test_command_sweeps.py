"""analysis/command_sweeps.py: a user's command lines swept (exec --fit), given the workloads' laws."""
import pytest
import unit_records

from parbench.analysis.command_sweeps import Unfitted, analyze_commands


def _command(model: str, params: dict, ns: int, spread: int = 2):
    times = tuple((ns + i * spread,) for i in range(6))          # six runs, one repetition each
    return unit_records.case_run(model, "command", times, params=params, runtime="exec", workload="exec")


def _fit_record(runs, axis: str, param: str, commands: list[str], template_of: dict):
    record = unit_records.record(runs, kind="exec")
    record.options["fit"] = {"axis": axis, "param": param, "commands": commands, "template_of": template_of}
    return record


def test_a_worker_sweep_has_speedup_cis_and_a_serial_fraction_bounded_by_the_runs():
    runs = [_command("prog 1", {"w": "1"}, 900_000), _command("prog 2", {"w": "2"}, 600_000)]
    record = _fit_record(runs, "workers", "w", ["prog {w}"], {r.case.key: 0 for r in runs})
    [(kind, subject, result)] = analyze_commands(record)
    assert (kind, subject) == ("scaling", "prog {w}") and result.workers == [1, 2]
    assert result.amdahl.params["f"] == pytest.approx(1 / 3, abs=0.01)
    low, high = result.amdahl.ci["f"]
    assert low <= 1 / 3 <= high and result.amdahl.ci_from == "resampled runs"
    assert result.speedup_ci[1][0] <= 1.5 <= result.speedup_ci[1][1]


def test_a_size_sweep_crosses_each_command_against_the_first():
    sizes = {"10": (10_000, 30_000), "100": (100_000, 30_000), "1000": (1_000_000, 30_000)}
    runs, template_of = [], {}
    for size, (first, second) in sizes.items():
        for index, ns in enumerate((first, second)):
            run = _command(f"c{index} {size}", {"size": size}, ns)
            runs.append(run)
            template_of[run.case.key] = index
    [(kind, subject, result)] = analyze_commands(_fit_record(runs, "size", "size", ["a {size}", "b"], template_of))
    assert (kind, subject) == ("crossover", "b against a {size}")
    assert result.sizes == [10, 100, 1000] and 10 < result.crossover < 100
    assert result.verdict.startswith("this command wins from about")


def test_a_count_sweep_gives_the_slope_per_unit_and_where_it_stopped():
    runs = [_command(f"p {n}", {"n": str(n)}, 1000 * n) for n in (10, 20, 40)]
    broken = unit_records.failed_run("p 80", params={"n": "80"})
    record = _fit_record(runs + [broken], "count", "n", ["p {n}"],
                         {r.case.key: 0 for r in runs + [broken]})
    [(kind, _, result)] = analyze_commands(record)
    assert kind == "per-task" and result.counts == [10, 20, 40] and result.largest_ok == 40
    assert result.time_per_unit_ns.per_unit == pytest.approx(1000, rel=0.01)
    assert result.failure["n"] == 80 and result.failure["outcome"] == "crash"


def test_a_run_without_fit_and_the_reference_are_left_alone():
    runs = [_command("prog 1", {"w": "1"}, 900_000), _command("ref", {}, 500_000)]
    assert analyze_commands(unit_records.record(runs, kind="exec")) == []
    record = _fit_record(runs, "workers", "w", ["prog {w}"], {runs[0].case.key: 0, runs[1].case.key: -1})
    assert analyze_commands(record) == []                       # one worker count is no scaling


@pytest.mark.parametrize("axis, bad", [("count", "nan"), ("count", "2.5"), ("size", "inf"), ("workers", "1e400")])
def test_a_stored_run_whose_values_its_axis_cannot_take_says_why_instead_of_a_fit(axis, bad):
    # Stored before fit_request refused such values: every later reading must still work.
    runs = [_command("p 1", {"v": "1"}, 1000), _command(f"p {bad}", {"v": bad}, 2000), _command("q 1", {"v": "1"}, 900)]
    record = _fit_record(runs, axis, "v", ["p {v}", "q {v}"], {runs[0].case.key: 0, runs[1].case.key: 0, runs[2].case.key: 1})
    [(kind, _, result)] = analyze_commands(record)
    assert kind == "unfitted" and isinstance(result, Unfitted)
    assert f"{{v}} = '{bad}' is not a" in result.reason


def _with_cpu(run, cores: float):
    for rep in run.repetitions:
        rep.extra.update(user_ns=int(rep.ns * cores), sys_ns=0, others_cores=0.05, steal_ns=0)
    return run


def test_a_sweep_whose_second_worker_got_no_second_core_shows_no_parallelism():
    # taskset -c 0: two workers take turns on one CPU, the CPU over wall stays at one core.
    runs = [_with_cpu(_command("prog 1", {"w": "1"}, 900_000), 1.0), _with_cpu(_command("prog 2", {"w": "2"}, 890_000), 1.02)]
    record = _fit_record(runs, "workers", "w", ["prog {w}"], {r.case.key: 0 for r in runs})
    [(_, _, result)] = analyze_commands(record)
    assert result.sitting["cores_got"] == [pytest.approx(1.0), pytest.approx(1.02)]
    assert result.no_parallelism == ("with more workers the command ran on at most 1.02 cores (2 workers; its CPU over "
                                     "its wall, 1.00 at 1 worker): it was given no second core, or used none")


def test_a_sweep_beside_other_work_that_never_ran_on_a_second_core_shows_no_parallelism():
    # Pinned beside a loaded machine, both counts got part of one core, one more than the other.
    runs = [_with_cpu(_command("prog 1", {"w": "1"}, 900_000), 0.6), _with_cpu(_command("prog 2", {"w": "2"}, 800_000), 0.67)]
    record = _fit_record(runs, "workers", "w", ["prog {w}"], {r.case.key: 0 for r in runs})
    [(_, _, result)] = analyze_commands(record)
    assert result.no_parallelism.startswith("with more workers the command ran on at most 0.67 cores")


def test_a_sweep_that_ran_on_more_cores_with_more_workers_is_fitted():
    runs = [_with_cpu(_command("prog 1", {"w": "1"}, 900_000), 1.0), _with_cpu(_command("prog 2", {"w": "2"}, 600_000), 1.5)]
    record = _fit_record(runs, "workers", "w", ["prog {w}"], {r.case.key: 0 for r in runs})
    [(_, _, result)] = analyze_commands(record)
    assert result.no_parallelism == "" and result.sitting["others_cores"] == [0.05, 0.05]


def test_a_command_that_mostly_waits_is_not_judged_by_its_cpu():
    runs = [_with_cpu(_command("prog 1", {"w": "1"}, 900_000), 0.01), _with_cpu(_command("prog 2", {"w": "2"}, 600_000), 0.02)]
    record = _fit_record(runs, "workers", "w", ["prog {w}"], {r.case.key: 0 for r in runs})
    [(_, _, result)] = analyze_commands(record)
    assert result.no_parallelism == ""
