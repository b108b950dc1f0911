"""report/console.py: the console report — the summary first, a table per table of the run, then
start-up, the cases without a timing and the scale overrides."""
import io

from unit_records import case_run, failed_run, record, two_models

from parbench.analysis.drift import Drift
from parbench.escaping import CONSOLE_OPTIONS, SafeConsole
from parbench.records import Analysis, Case
from parbench.report.console import group_table, print_group, print_run, print_summary
from parbench.report.rows import groups


def _console(out: io.StringIO) -> SafeConsole:
    return SafeConsole(file=out, width=400, color_system=None, **CONSOLE_OPTIONS)


def _report(rec, **options) -> str:
    out = io.StringIO()
    print_run(rec, _console(out), **options)
    return out.getvalue()


def test_the_report_opens_with_the_run_then_the_summary_then_its_tables():
    text = _report(two_models())
    assert text.startswith("Run 1 (suite, scale smoke, complete) started 2026-11-25T08:00:00+00:00")
    assert text.index("Summary: the best model") < text.index("toy  n=10") < text.index("Comparison")


def test_a_tables_comparison_block_names_each_case_against_the_fastest_and_its_seq():
    text = _report(two_models())
    assert "rt pool ×2" in text and "fastest" in text and "(is seq)" in text and "x slower" in text


def test_a_case_without_a_verified_timing_is_listed_with_its_outcome_and_reason():
    text = _report(two_models())
    failures = text[text.index("Cases that did not produce a verified timing"):]
    assert "toy/rt/broken[n=10,workers=2]" in failures and "crash" in failures and "it fell over" in failures


def test_a_run_without_failures_has_no_failure_table():
    assert "did not produce a verified timing" not in _report(record([case_run()]))


def test_tables_false_leaves_out_the_per_table_detail_a_live_run_printed():
    text = _report(two_models(), tables=False)
    assert "Summary" in text and "Comparison" not in text


def test_an_exec_run_has_no_summary_matrix():
    out = io.StringIO()
    print_summary(record([case_run()], kind="exec"), _console(out))
    assert out.getvalue() == ""


def test_a_noop_case_is_shown_as_start_up_not_as_a_table():
    text = _report(record([case_run(), case_run(workload="noop", params={})]))
    startup = text[text.index("Start-up: a whole process that does no work"):]
    assert "1.63 µs" in startup          # the median whole process (2 × 315 ns + 1,000 ns and 2 × 314 + 1,000)
    assert "noop  " not in text[:text.index("Start-up")]


def test_a_scale_override_is_named_once_per_runtime_and_workload():
    runs = [case_run(), case_run(params={"n": 20})]
    for run in runs:
        run.case = Case("toy", "rt", "seq", "seq", run.case.params, overrides=("n is smaller here",))
    assert _report(record(runs)).count("scale override rt toy: n is smaller here") == 1


def test_the_sittings_drift_is_a_line_and_a_mark_on_the_table_measured_while_off():
    drift = Drift(9, 0.08, 0.01, 0.0, 0.1, {"toy n=10": 0.08})
    text = _report(two_models(), analyses=[Analysis("drift", "sitting", drift)])
    assert "machine drift 8.0% over this sitting (drift sentinel, 9 readings" in text
    assert "⚠ measured while the machine was off by 8.0% (drift sentinel)" in text


def test_a_table_with_no_measured_case_prints_nothing():
    [group] = groups(record([failed_run()]))
    out = io.StringIO()
    print_group(group, _console(out))
    assert out.getvalue() == ""


def test_a_cases_note_is_printed_under_its_table():
    run = case_run()
    run.case = Case("toy", "rt", "seq", "seq", {"n": 10}, note="chunks of 4 KiB, not the rule's")
    [group] = groups(record([run]))
    out = io.StringIO()
    print_group(group, _console(out))
    assert "rt seq: chunks of 4 KiB, not the rule's" in out.getvalue()


def test_a_control_character_from_a_stderr_tail_is_shown_escaped():
    broken = failed_run()
    broken.processes[0].stderr_tail = "boom \x1b[2J"
    text = _report(record([case_run(), broken]))
    assert "\x1b" not in text and "boom" in text


# --- a case table a 160-column terminal shows whole (issue 56) -----------------------------------------
def _with_steady_state(run, steady: str, first: int, warmup_reps: int = 5):
    first_timed = {}
    for rep in run.repetitions:
        if rep.process not in first_timed:
            first_timed[rep.process] = rep
            rep.extra.update(steady_class=steady, first_ns=first, warmup_reps=warmup_reps, warmup_ns=10 * first,
                             tree_peak_pss_kb=9000, cgroup_peak_kb=9800)
    return run


def test_a_case_table_fits_160_columns_with_no_cell_over_two_lines():
    ms = 1_000_000
    slow = tuple(tuple(t * ms for t in reps) for reps in ((101, 99, 100), (120, 118, 119)))
    runs = [_with_steady_state(case_run("rayon-broadcast", "data-parallel", slow, workers=16,
                                        params={"n": 10, "start": "cold"}), "no steady state", 450 * ms),
            _with_steady_state(case_run("virtual-threads", "green", slow, workers=16), "warm-up", 7 * ms),
            _with_steady_state(case_run(times=slow), "flat", 100 * ms)]
    runs[1].processes[1].index = 1
    for run in runs[1:2]:
        for rep in run.repetitions:
            if rep.process == 1 and "steady_class" in rep.extra:
                rep.extra.update(steady_class="flat", steady_level_ns=119 * ms, steady_spread_ns=ms)
            elif "steady_class" in rep.extra:
                rep.extra.update(steady_level_ns=100 * ms, steady_spread_ns=ms)
    table = group_table(groups(record(runs))[0])
    table.show_lines = True                   # a rule under each row, to count each row's lines
    out = io.StringIO()
    SafeConsole(file=out, width=160, color_system=None, **CONSOLE_OPTIONS).print(table)
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 160
    body = lines[lines.index(next(l for l in lines if l.startswith("┡"))) + 1:-1]
    heights, height = [], 0
    for line in body:
        if line.startswith("├"):
            heights.append(height)
            height = 0
        else:
            height += 1
    heights.append(height)
    assert len(heights) == 3 and max(heights) <= 2, "\n".join(lines)
    text = out.getvalue()
    assert "⚠ not settled" in text and "levels differ" in text
