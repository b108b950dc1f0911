"""report/compare_runs.py: the same cases of two runs paired B against A, the regressions among
them, and each run's machine beside the table."""
import io

from rich.console import Console
from unit_records import case_run, failed_run, record

from parbench.report.compare_runs import PairedCase, machine_line, pair_cases, print_comparison, regressions
from parbench.records import Comparison

FAST = ((50, 55, 52), (51, 54, 53), (52, 53, 51))
SLOW = ((100, 110, 105), (102, 108, 104), (101, 109, 103))


def _runs(a_runs, b_runs, **machine_b):
    a, b = record(a_runs, run_id=1), record(b_runs, run_id=2)
    a.machine.update(cpu="cpu-a")
    b.machine.update({"cpu": "cpu-a", **machine_b})
    return a, b


def _paired(a_runs, b_runs) -> dict[str, PairedCase]:
    return {row.key: row for row in pair_cases(*_runs(a_runs, b_runs))}


def test_a_case_in_both_runs_is_compared_b_against_a():
    [row] = _paired([case_run(times=FAST)], [case_run(times=SLOW)]).values()
    assert row.median_a < row.median_b and row.comparison.significant
    assert 1.9 < row.comparison.ratio < 2.1 and row.comparison.reference == row.key


def test_a_case_in_one_run_only_says_which_and_is_not_compared():
    rows = _paired([case_run()], [case_run(params={"n": 20})])
    assert [r.note for r in rows.values()] == ["only in run 1", "only in run 2"]
    assert all(r.comparison is None for r in rows.values())


def test_the_cases_of_a_come_first_then_those_only_in_b():
    a, b = _runs([case_run(params={"n": 1}), case_run(params={"n": 2})], [case_run(params={"n": 3}),
                                                                            case_run(params={"n": 1})])
    assert [r.key for r in pair_cases(a, b)] == ["toy/rt/seq[n=1]", "toy/rt/seq[n=2]", "toy/rt/seq[n=3]"]


def test_a_case_without_a_verified_timing_in_one_run_names_its_outcome():
    [row] = _paired([case_run("broken", "threads", workers=2)], [failed_run()]).values()
    assert row.comparison is None and row.note == "no verified timing in one run (crash)"
    assert row.median_a is not None and row.median_b is None


def test_a_time_of_zero_gives_no_ratio_and_says_which_run_read_zero():
    zero = case_run(times=((0, 0, 0), (0, 0, 0)))
    [row] = _paired([zero], [case_run()]).values()
    assert row.comparison is None and row.note.startswith("no ratio: run 1 reads 0")


def _row(ratio: float, significant: bool) -> PairedCase:
    return PairedCase("k", 1.0, ratio, Comparison("k", ratio, (ratio - 0.01, ratio + 0.01), 1.0, significant))


def test_a_regression_is_significant_and_beyond_the_threshold():
    rows = [_row(1.10, True), _row(1.03, True), _row(1.50, False), _row(0.5, True),
            PairedCase("k", None, None, None, "only in run 1")]
    assert regressions(rows, 5.0) == [rows[0]]
    assert regressions(rows, 2.0) == rows[:2]


def test_the_machine_line_names_the_run_and_its_machine_on_one_line():
    rec = record([case_run()])
    rec.machine.update(cpu="Some\nCPU", memory_gib=16, os="Linux", os_kernel="6.1", git_commit="abc123")
    line = machine_line(rec)
    assert "\n" not in line
    assert line.startswith("run 1 (suite, scale smoke, 2026-11-25T08:00:00+00:00): unit · ")
    for part in ("2 CPUs", "16 GiB", "kernel 6.1", "parbench @ abc123"):
        assert part in line


def _printed(a, b, drifts=("", "")) -> str:
    out = io.StringIO()
    print_comparison(a, b, pair_cases(a, b), Console(file=out, width=200, color_system=None), drifts)
    return out.getvalue()


def test_the_printed_comparison_shows_both_machines_drifts_and_each_cases_verdict():
    a, b = _runs([case_run(times=FAST), case_run(params={"n": 99})], [case_run(times=SLOW)])
    text = _printed(a, b, ("drift 1.0%", ""))
    assert "A: run 1" in text and "B: run 2" in text
    assert "drift 1.0%" in text and "no drift sentinel in this run" in text
    assert "Run 2 against run 1" in text and "x slower" in text and "only in run 1" in text
    assert "different machines" not in text


def test_runs_on_different_machines_are_flagged():
    a, b = _runs([case_run()], [case_run()], cpu="cpu-b")
    assert "different machines: the ratios compare machines as well as runs" in _printed(a, b)
