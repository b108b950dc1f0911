"""kinds/exec/summary.py: exec's console report in hyperfine's shape; an interval from fewer than
ten runs is called the range, never a 95% CI; comparisons against the fastest or --reference."""
import io

from rich.console import Console
from unit_records import case_run, failed_run, record

from parbench.kinds.exec.summary import (MIN_RUNS_FOR_CI, comparison_lines, command_block, duration,
                                         output_sentence, print_exec, shell_line, time_lines)

MS = 1_000_000
FEW = ((10 * MS, 11 * MS, 12 * MS),)
MANY = tuple((v * MS,) for v in (10, 11, 12, 10, 11, 12, 10, 11, 12, 11))


def command(name: str, times=FEW, note: str = "", scale: float = 1.0):
    run = case_run(name, "command", tuple(tuple(int(ns * scale) for ns in reps) for reps in times),
                   params={}, runtime="exec", workload="exec")
    object.__setattr__(run.case, "note", note)
    return run


def results(*runs, **options):
    out = record(list(runs), kind="exec")
    out.options = options
    return out


def test_a_duration_is_in_human_units_or_the_unit_asked_for():
    assert duration(1_500_000, None) == "1.5 ms" and duration(1_500_000, "microsecond") == "1500 µs"
    assert duration(2e9, "second") == "2 s"


def test_fewer_than_ten_runs_show_the_range_and_say_why_there_is_no_ci():
    line, = time_lines(results(command("a")).results[0], None)
    assert "Time (median, range):   11 ms  [10 ms … 12 ms]" in line
    assert f"3 runs (too few for a 95% CI: at least {MIN_RUNS_FOR_CI})" in line


def test_ten_runs_or_more_show_the_median_with_its_95_ci_and_the_range():
    ci, spread = time_lines(results(command("a", MANY)).results[0], None)
    assert ci.startswith("  Time (median, 95% CI):  11 ms  [") and ci.endswith("10 runs")
    assert spread == "  Range (min … max):      10 ms … 12 ms"


def test_the_output_sentence_says_whether_every_run_printed_the_same():
    run = command("a")
    assert output_sentence(results(run).results[0]) == "output identical in every run ✓"
    run.repetitions[0].checksum = "other"
    assert output_sentence(results(run).results[0]) == "output varies (2 different outputs in 3 runs)"


def test_the_output_sentence_says_what_reading_cost_and_when_nothing_was_read():
    run = command("a")
    for rep in run.repetitions:
        rep.extra.update(output_read=True, stdout_bytes=24 << 20, launcher_cpu_ns=12_000_000)
    assert output_sentence(results(run).results[0]) == \
        "output identical in every run ✓ (read: 24 MiB a run, the launcher's CPU 12 ms a run)"
    for rep in run.repetitions:
        rep.extra = {"output_read": False}
    assert output_sentence(results(run).results[0]).startswith("output not read (--output=null")


def test_a_block_names_its_benchmark_with_its_command_line_beside_a_name():
    block = command_block(2, results(command("nap", note="sleep 0.01")).results[0], None, True)
    assert block[0] == "Benchmark 2: nap (sleep 0.01)" and "peak memory (whole tree)" in block[-1]


def test_a_command_line_over_several_lines_stays_on_the_headers_line():
    block = command_block(1, results(command("a\nb")).results[0], None, True)
    assert block[0] == "Benchmark 1: a\\nb"


def test_a_failed_command_shows_its_status_and_reason():
    block = command_block(1, results(failed_run("boom")).results[0], None, True)
    assert block == ["Benchmark 1: boom", "  crash: exit 1: it fell over"]


def test_a_run_faster_than_five_ms_through_a_shell_is_warned_about_but_not_without_one():
    fast = results(command("a", scale=0.1)).results[0]
    assert "Warning: a run took less than 5 ms" in command_block(1, fast, None, True)[-1]
    assert not any("Warning" in line for line in command_block(1, fast, None, False))


def test_the_fastest_ran_first_and_the_others_compare_with_it_fastest_first():
    rs = results(command("slow", scale=3.0), command("fast"), command("mid", scale=2.0)).results
    lines = comparison_lines(rs, None, by_command=False)
    assert lines[0] == "  'fast' ran"
    assert lines[1].startswith("    2.00x faster than 'mid' (ratio of medians; fewer than 10 runs: no CI)")
    assert lines[2].startswith("    3.00x faster than 'slow'")


def test_sort_by_command_keeps_the_commands_order():
    rs = results(command("slow", scale=3.0), command("fast"), command("mid", scale=2.0)).results
    assert [line.split("'")[1] for line in comparison_lines(rs, None, by_command=True)[1:]] == ["slow", "mid"]


def test_a_reference_slower_than_another_says_how_much_slower():
    rs = results(command("ref", scale=2.0), command("fast")).results
    assert comparison_lines(rs, rs[0].case.key, False)[1].startswith("    2.00x slower than 'fast'")


def test_with_ten_runs_each_the_ratio_comes_with_its_interval_or_no_significant_difference():
    rs = results(command("slow", MANY, scale=2.0), command("fast", MANY)).results
    assert comparison_lines(rs, None, False)[1].startswith("    2.00x faster than 'slow' [")
    same = results(command("a", MANY), command("b", MANY)).results
    assert comparison_lines(same, None, False)[1].startswith("    no significant difference from")


def test_a_time_of_zero_gives_no_ratio_and_says_why():
    rs = results(command("zero", scale=0.0), command("b")).results
    assert "no ratio with 'b': the reference's time is 0" in comparison_lines(rs, None, False)[1]


def test_one_measured_command_has_nothing_to_compare():
    assert comparison_lines(results(command("a"), failed_run()).results, None, False) == []


def test_the_shell_line_names_the_shell_and_its_mean_start_up_where_it_was_measured():
    line = shell_line({"shell": "sh", "shell_startup": {"runs": 50, "wall_ns": 1_200_000}})
    assert line.startswith("Shell start-up (sh -c '', mean of 50 runs): 1.2 ms, subtracted")
    assert shell_line({"shell": "none", "shell_startup": {"runs": 0, "wall_ns": 0}}) is None
    assert shell_line({}) is None


def test_the_report_prints_blocks_comparison_and_failures_in_order():
    out = io.StringIO()
    run = results(command("a"), command("b", scale=2.0), failed_run("boom"),
                  shell="sh", shell_startup={"runs": 50, "wall_ns": 1_000_000})
    print_exec(run, Console(file=out, width=200, color_system=None))
    text = out.getvalue()
    order = ["Shell start-up", "Benchmark 1: a", "Benchmark 2: b", "Benchmark 3: boom", "Comparison", "'a' ran"]
    assert [text.index(part) for part in order] == sorted(text.index(part) for part in order)
    assert "fell over" in text.split("'a' ran")[1]


def test_a_fits_answer_names_the_best_worker_count_the_serial_fraction_and_the_crossover():
    from parbench.analysis.crossover import CrossoverResult
    from parbench.analysis.scaling import Fit, ScalingResult
    from parbench.kinds.exec.summary import crossover_answer, scaling_answer
    fit = Fit("amdahl", {"f": 0.25}, {"f": (0.2, 0.3)}, 0.0, 0, "resampled runs")
    scaling = ScalingResult([1, 2], [1, 2], [1.0, 1.6], [1.0, 0.8], fit, None, None, None, {}, 2, "",
                            speedup_ci=[(1.0, 1.0), (1.5, 1.7)], cores=2)
    assert scaling_answer(scaling) == ["  best at 2 workers: 1.60x (95% CI 1.50x – 1.70x) over 1 worker, efficiency 80%",
                                       "  serial fraction (Amdahl) f = 0.250 (95% CI 0.200 – 0.300)"]
    crossing = CrossoverResult([10, 100], [2.0, 0.5], [(1.8, 2.2), (0.4, 0.6)], 31.6, (25.0, 40.0), "", param="size")
    assert crossover_answer(crossing) == ["  faster from size ≈ 32 (95% CI 25 – 40)"]


def _scaling(workers, speedup, ci, f=0.25, f_ci=(0.2, 0.3), **extra):
    from parbench.analysis.scaling import Fit, ScalingResult
    fit = Fit("amdahl", {"f": f}, {"f": f_ci}, 0.0, 0, "resampled runs")
    return ScalingResult(workers, [w for w in workers if w <= 2], speedup, [s / w for s, w in zip(speedup, workers)],
                         fit, None, None, None, {}, 2, "", speedup_ci=ci, cores=2, **extra)


def test_no_best_is_named_beyond_the_machines_cpus_or_where_the_interval_holds_1():
    from parbench.kinds.exec.summary import scaling_answer
    lines = scaling_answer(_scaling([1, 2, 3, 4], [1.0, 1.02, 1.08, 1.05],
                                    [(1.0, 1.0), (0.9, 1.1), (0.87, 1.17), (0.95, 1.2)], f=0.95, f_ci=(0.8, 1.0)))
    assert not any("best at" in line for line in lines)
    assert lines[0] == ("  no significant speedup at any worker count up to the machine's CPUs: 2 workers 1.02x "
                        "(95% CI 0.90x – 1.10x) (each interval holds 1x)")
    assert lines[1].startswith("  beyond the machine's 2 CPUs (shown, not fitted, never a best): 3 workers 1.08x")


def test_a_slowdown_is_said_as_a_slowdown_and_f_at_its_bound_says_so():
    from parbench.kinds.exec.summary import scaling_answer
    lines = scaling_answer(_scaling([1, 2], [1.0, 0.85], [(1.0, 1.0), (0.8, 0.9)], f=1.0, f_ci=(1.0, 1.0)))
    assert lines[0] == "  slower with more workers: 2 workers 0.85x (95% CI 0.80x – 0.90x) over 1 worker"
    assert lines[1].startswith("  serial fraction (Amdahl) f = 1.000 (95% CI 1.000 – 1.000) — the law's bound: "
                               "Amdahl's law has no slowdown")


def test_a_sitting_that_could_not_show_parallelism_gives_no_serial_fraction_and_says_what_it_got():
    from parbench.kinds.exec.summary import scaling_answer
    sitting = {"workers": [1, 2], "cores_got": [0.99, 1.01], "others_cores": [0.0, 0.02], "steal_share": [0.0, 0.001]}
    lines = scaling_answer(_scaling([1, 2], [1.0, 0.99], [(1.0, 1.0), (0.97, 1.01)], f=1.0, sitting=sitting,
                                    no_parallelism="at 2 workers the command ran on 1.01 cores"))
    assert lines[0] == ("  no parallelism available: at 2 workers the command ran on 1.01 cores; no serial fraction "
                        "from this sitting")
    assert lines[1] == ("  cores it ran on (CPU over wall), by workers asked: 1: 0.99, 2: 1.01 of 2 CPUs; the rest of "
                        "the machine kept up to 0.02 cores busy, the hypervisor stole up to 0.00 cores' worth")
    assert not any("f = " in line or "best at" in line for line in lines)


def test_the_points_table_fits_the_terminal_by_leaving_out_columns_in_the_stated_order():
    from parbench.kinds.exec.summary import DROP_TO_FIT, print_points
    from parbench.report.rows import COLUMNS
    run = results(command("a"), command("b", scale=2.0))
    narrow = io.StringIO()
    print_points(run, [], Console(file=narrow, width=80, color_system=None))
    text = narrow.getvalue()
    assert max(len(line) for line in text.splitlines()) <= 80
    said = " ".join(text.split()).split("left out to fit 80 columns: ")[1]
    dropped = said.split(" (--verbose")[0].split(", ")
    assert dropped == list(DROP_TO_FIT[:len(dropped)]) and "(--verbose and every export keep them)" in said
    header = next(line for line in text.splitlines() if "case" in line)
    assert "median" in header and "✓" in header
    verbose = io.StringIO()
    print_points(run, [], Console(file=verbose, width=80, color_system=None), verbose=True)
    assert "left out" not in verbose.getvalue()
    wide = io.StringIO()
    print_points(run, [], Console(file=wide, width=400, color_system=None), verbose=True)
    header = next(line for line in wide.getvalue().splitlines() if "case" in line and "median" in line)
    assert all(column in header for column in COLUMNS if " " not in column)
