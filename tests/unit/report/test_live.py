"""report/live.py: what a running suite prints as it goes — a line per finished case, and each
table once its cases are done."""
import io

from rich.console import Console
from unit_records import CORES, case_run, failed_run

from parbench.report.live import case_line, live_progress


def test_a_finished_case_shows_its_median_the_cis_half_width_and_its_processes():
    line = case_line(case_run(), CORES)
    assert line.startswith("✓ rt seq ") and "toy n=10  104 ns ±" in line and line.endswith("%  2 processes")
    half = float(line.split("±")[1].split("%")[0])
    assert 0 < half < 10


def test_a_case_that_stopped_early_says_why():
    run = case_run(times=((100, 110, 105),))
    run.flags["stopped"] = "converged after 1 process"
    assert case_line(run, CORES).endswith("  1 process (converged after 1 process)")


def test_a_failed_case_shows_its_outcome_and_reason_on_one_line():
    run = failed_run()
    run.reason = "exit 1:\nit fell over" + "x" * 300
    line = case_line(run, CORES)
    assert line.startswith("✗ rt broken ×2") and ": crash: exit 1:" in line
    assert "\n" not in line and len(line) < 260


def test_a_case_whose_repetitions_were_all_rejected_has_no_median():
    run = case_run()
    for rep in run.repetitions:
        rep.verified = False
    assert case_line(run, CORES) == f"? {'rt seq':<26} toy n=10: no verified repetition"


def _progress(tables: bool = True):
    out = io.StringIO()
    return out, live_progress(Console(file=out, width=300, color_system=None), CORES, tables)


def test_each_finished_case_is_printed_as_it_ends():
    out, progress = _progress()
    progress.case_done(case_run())
    progress.case_done(failed_run())
    lines = out.getvalue().splitlines()
    assert [line[0] for line in lines] == ["✓", "✗"]


def test_a_finished_table_is_printed_fastest_first():
    out, progress = _progress()
    progress.group_done([case_run(), case_run("pool", "threads", ((50, 55, 52), (51, 54, 53)), workers=2)])
    text = out.getvalue()
    assert "toy  n=10" in text and text.index("rt pool") < text.index("rt seq") and "Comparison" in text


def test_no_table_is_printed_for_noop_or_when_tables_are_off():
    out, progress = _progress()
    progress.group_done([case_run(workload="noop", params={})])
    progress.group_done([])
    assert out.getvalue() == ""
    out, progress = _progress(tables=False)
    progress.group_done([case_run()])
    assert out.getvalue() == ""


def test_a_finished_case_of_strong_keys_is_form_checked_not_ticked():

    line = case_line(case_run(workload="keygen", params={"count": 10, "bytes": 20, "source": "strong"}), 2)
    assert line.startswith("form checked ") and "✓" not in line
