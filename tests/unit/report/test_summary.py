"""report/summary.py: one row per table, one cell per runtime — the best model, its speedup over
its runtime's seq, and stars only where a row compares runtimes."""
import math

from unit_records import case_run, failed_run, record, two_models

from parbench.records import Case
from parbench.report.rows import Group, interval_text
from parbench.report.summary import Cell, anchor_of, summary

THREE = ((100, 110, 105), (102, 108, 104), (101, 109, 103))          # three processes: a CI fit to crown
THREE_FAST = ((50, 55, 52), (51, 54, 53), (52, 53, 51))


def _only_row(rec):
    runtimes, rows = summary(rec)
    assert len(rows) == 1
    return runtimes, rows[0]


def test_a_cell_holds_the_runtimes_fastest_model_and_its_speedup_over_seq_with_the_ci_inverted():
    _, row = _only_row(two_models())
    [cell] = row.cells
    assert cell.model == "pool ×2" and cell.median_ns == 52.5
    assert 1.9 < cell.speedup < 2.1 and cell.speedup_ci[0] < cell.speedup < cell.speedup_ci[1]
    assert cell.verdict == "faster" and math.isclose(cell.heat, math.log2(cell.speedup))


def test_a_cell_names_its_cases_without_a_timing():
    _, row = _only_row(two_models())
    assert row.cells[0].failed == [("broken ×2", "crash")]


def test_the_cost_per_item_divides_the_median_by_the_repetitions_items():
    _, row = _only_row(record([case_run(items=4)]))
    cell = row.cells[0]
    assert math.isclose(cell.per_item_ns, cell.median_ns / 4) and "/item" in cell.text()


def test_a_runtime_that_ran_only_seq_is_its_own_baseline_and_says_so():
    _, row = _only_row(record([case_run()]))
    cell = row.cells[0]
    assert cell.baseline and cell.speedup == 1.0 and cell.verdict == "seq-only" and cell.heat is None
    assert "× seq" not in cell.text()


def test_when_seq_is_the_fastest_its_rival_is_what_parallelism_costs():
    slower_pool = case_run("pool", "threads", ((200, 210, 205), (202, 208, 204)), workers=2)
    _, row = _only_row(record([case_run(), slower_pool]))
    cell = row.cells[0]
    assert cell.model == "seq" and cell.rival.model == "pool ×2"
    assert cell.deciding is cell.rival and cell.verdict == "slower" and cell.heat < 0


def test_a_runtime_whose_cases_all_failed_shows_the_first_failure():
    _, row = _only_row(record([failed_run("a", "crash"), failed_run("b", "limit")]))
    cell = row.cells[0]
    assert cell.case_key is None and cell.outcome == "crash" and cell.verdict == "failed"
    assert cell.text() == "crash: exit 1: it fell over"


def test_a_runtime_whose_cases_all_hit_a_limit_is_a_limit_not_a_failure():
    _, row = _only_row(record([failed_run("a", "limit"), failed_run("b", "limit")]))
    assert row.cells[0].verdict == "limit"


def test_a_runtime_absent_from_a_table_has_an_empty_cell():
    other_table = case_run(runtime="other", params={"n": 20})
    _, rows = summary(record([case_run(), other_table]))
    absent = [c for row in rows for c in row.cells if c.case_key is None]
    assert len(absent) == 2 and all(c.verdict == "absent" and c.text() == "–" for c in absent)


def test_a_row_of_one_runtime_is_never_starred_and_says_why():
    _, row = _only_row(record([case_run(times=THREE), case_run("pool", "threads", THREE_FAST, workers=2)]))
    assert not row.compares_runtimes and not any(c.fastest for c in row.cells)
    assert row.own_sizes == "the only runtime in this table"


def test_a_row_of_one_runtime_names_the_override_that_gave_it_its_own_size():
    run = case_run(times=THREE)
    run.case = Case("toy", "rt", "seq", "seq", {"n": 10}, overrides=("n=10: too slow at the scale's size",))
    _, row = _only_row(record([run]))
    assert row.own_sizes == "n=10: too slow at the scale's size"


def test_the_fastest_runtime_of_a_row_that_compares_runtimes_gets_the_star():
    runtimes, row = _only_row(record([case_run(times=THREE, runtime="a"), case_run(times=THREE_FAST, runtime="b")]))
    cells = dict(zip(runtimes, row.cells))
    assert row.compares_runtimes and cells["b"].fastest and not cells["a"].fastest
    assert cells["b"].vs_fastest == 1.0 and cells["a"].vs_fastest > 1.9
    assert cells["b"].text().startswith("★ ")


def test_runtimes_not_significantly_apart_share_the_star():
    runtimes, row = _only_row(record([case_run(times=THREE, runtime="a"), case_run(times=THREE, runtime="b")]))
    assert all(c.fastest for c in row.cells)


def test_a_ci_from_two_processes_is_too_rough_to_crown_anything():
    _, row = _only_row(record([case_run(runtime="a"), case_run(times=((50, 55, 52), (51, 54, 53)), runtime="b")]))
    assert row.compares_runtimes and not any(c.fastest for c in row.cells)


def test_within_a_workload_the_row_with_the_most_runtimes_comes_first():
    own = case_run(runtime="a", params={"n": 5})
    common = [case_run(runtime="a", params={"n": 50}), case_run(runtime="b", params={"n": 50})]
    _, rows = summary(record([own, *common]))
    assert [row.title for row in rows] == ["toy n=50", "toy n=5"]
    assert [row.runtimes_measured for row in rows] == [2, 1]


def test_a_title_names_only_the_params_that_tell_the_workloads_tables_apart():
    one = case_run(params={"n": 5, "cipher": "table"})
    two = case_run(params={"n": 6, "cipher": "table"})
    _, rows = summary(record([one, two]))
    assert sorted(row.title for row in rows) == ["toy n=5", "toy n=6"]


def test_an_anchor_keeps_letters_and_digits_and_sorts_the_params():
    group = Group("sdes-ecb", {"size": 1024, "cipher": "a b"}, [])
    assert anchor_of(group) == "t-sdes-ecb-cipher-a-b-size-1024"


def test_a_case_cut_short_by_a_stopped_run_is_marked_partial():
    run = case_run()
    run.status = "interrupted"
    _, row = _only_row(record([run]))
    assert row.cells[0].partial == "partial: 2 process(es) before the run stopped"
    assert row.cells[0].text().endswith("partial: 2 process(es) before the run stopped")


def test_a_parallel_case_whose_repetitions_used_one_worker_is_flagged():
    pool = case_run("pool", "threads", THREE_FAST, workers=4)
    for rep in pool.repetitions:
        rep.extra["workers_used"] = 1
    _, row = _only_row(record([case_run(times=THREE), pool]))
    assert row.cells[0].one_worker and "ran on 1 worker" in row.cells[0].text()


def test_a_speedup_that_is_not_significant_reads_as_about_seq():
    cell = Cell("rt", "k", "pool ×2", 100.0, speedup=1.01, speedup_ci=(0.9, 1.1), significant=False)
    assert cell.verdict == "same" and cell.heat is None
    assert "≈ seq (n.s. [0.90–1.10])" in cell.text()


def test_a_best_case_with_no_seq_to_compare_with_has_no_verdict_on_speedup():
    assert Cell("rt", "k", "pool ×2", 100.0).verdict == "no-seq"


def test_a_star_on_a_case_that_never_settled_or_settled_at_different_levels_carries_a_mark():
    for steady, words in (("no steady state in 1 of 3", "not settled in 1 of 3"),
                          ("inconsistent: levels 30 % apart (2 warm-up, 1 flat)", "levels differ")):
        assert Cell("rt", "k", "seq", 100.0, fastest=True, steady=steady).text().startswith("★⚠ seq")
        assert words in Cell("rt", "k", "seq", 100.0, steady=steady).text()
    for steady in ("warm-up", "slowdown", "steady: 2 warm-up, 1 flat"):       # every process settled
        assert Cell("rt", "k", "seq", 100.0, fastest=True, steady=steady).text().startswith("★ seq")


def test_a_cell_names_its_class_and_its_first_repetition_where_it_differs():
    text = Cell("rt", "k", "seq", 1_000_000.0, steady="warm-up", first_ns=4_000_000.0).text()
    assert text.endswith("\nwarm-up, 1st 4 ms")
    assert "1st" not in Cell("rt", "k", "seq", 1_000_000.0, steady="flat").text()


def test_a_cell_of_strong_keys_says_form_checked():
    strong = case_run(workload="keygen", params={"count": 10, "bytes": 20, "source": "strong"}, times=THREE)
    _, row = _only_row(record([strong]))
    assert "form checked" in row.cells[0].text()


def test_a_unit_in_ies_is_made_singular_in_y():
    from parbench.report.summary import _singular
    assert (_singular("replies"), _singular("keys"), _singular("MB")) == ("reply", "key", "MB")


def test_a_cell_leads_with_model_median_interval_and_speedup_and_puts_the_rest_below():
    """Read in ten seconds (issue 56): the answer on the first line, how it got there below."""
    cell = Cell("rt", "k", "rayon ×2", 3_210_000.0, speedup=3.9, speedup_ci=(3.7, 4.1), fastest=True,
                per_item_ns=0.4, item="byte", kernel="tuned", steady="steady: 2 warm-up, 1 flat",
                first_ns=9_000_000.0, median_ci=(3_180_000.0, 3_250_000.0), proof="form checked")
    head, detail = cell.lines()
    assert head == "★ rayon ×2 · 3.21 ms [3.18–3.25 ms] · 3.90× seq [3.70–4.10]"
    assert detail == "steady, 1st 9 ms · form checked · 0.4 ns/byte · tuned"
    assert cell.text() == head + "\n" + detail


def test_an_interval_across_units_names_both():
    assert interval_text(990_000.0, 1_020_000.0) == "[990 µs–1.02 ms]"
