"""The HTML report, built from a real store by the real CLI and opened in a real headless Chromium."""
from __future__ import annotations

import re
import subprocess
import shutil
from pathlib import Path

import pytest

from conftest import CHROMIUM, CHROMIUM_ARGS, REPO, parbench, require, require_module
from parbench.store.analyzed import load_analyzed
from parbench.records import Case, CaseRun, ProcessMeasurement, Repetition, RunRecord
from parbench.report.rows import median_extra, one_worker
from parbench.report.summary import summary
from parbench.store import open_store
from parbench.units import format_duration

SCREENSHOT = REPO / "results" / "test-artifacts" / "report.png"


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict:
    """A store with failures, a task sweep, a case that ran on one worker beside a ceiling, runs
    where every case of a runtime hit a limit or crashed, paced's run where seq beats its rivals
    (a cluster among them) and its worker sweep, and a run of known samples; its page."""
    sync_api = require_module("playwright.sync_api", "pip install -e '.[test]'")
    require(Path(CHROMIUM).exists(), f"{CHROMIUM} is not installed (apt-get install -y chromium)")
    tmp = tmp_path_factory.mktemp("html")
    root = _project(tmp / "project", "faulty")
    db = str(tmp / "results.sqlite")
    parbench("run", "--workload", "spawn-chain", "--model", "ok", "--model", "slow", "--model", "crash",
             "--model", "limit", "--model", "hang", "--scale", "smoke", "--processes", "2", "--timeout", "2",
             "--db", db, root=root)
    parbench("sweep", "tasks", "--workload", "spawn-chain", "--model", "ok", "--model", "limit",
             "--counts", "1000,4000,16000", "--scale", "smoke", "--processes", "2", "--db", db,
             root=root, check=True)
    hostile = _project(tmp / "hostile", "hostile")   # a parallel case whose work all went to one worker
    parbench("run", "--workload", "spawn-chain", "--model", "one-worker", "--model", "with-ceiling", "--workers", "2",
             "--scale", "smoke", "--processes", "1", "--db", db, root=hostile, check=True)
    for model in ("limit", "crash"):        # a summary cell with no timing at all
        parbench("run", "--workload", "spawn-chain", "--model", model, "--scale", "smoke", "--processes", "1",
                 "--db", db, root=root)
    paced = _project(tmp / "paced", "paced")       # seq 2 ms, threads ×2 6 ms, cluster ×2 8 ms
    parbench("run", "--workload", "spawn-chain", "--workers", "2", "--scale", "smoke", "--processes", "3",
             "--repeat", "3", "--db", db, root=paced, check=True)
    parbench("sweep", "workers", "--workload", "spawn-chain", "--model", "threads", "--workers", "1,2",
             "--scale", "smoke", "--processes", "1", "--repeat", "2", "--db", db, root=paced, check=True)
    known_run = _store_known_samples(db)
    across_run = _store_two_runtimes(db)
    store = open_store(db)
    run_ids = [str(i) for i in store.run_ids()]
    page_path = tmp / "report.html"
    done = parbench("report", *run_ids, "--html", str(page_path), "--db", db, check=True)
    assert f"wrote {page_path}" in done.stdout
    records = [load_analyzed(store, i) for i in run_ids]
    console_messages: list[str] = []
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1300, "height": 1000})
        page.on("console", lambda m: console_messages.append(f"{m.type}: {m.text}") if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: console_messages.append(f"pageerror: {e}"))
        requests: list[str] = []
        page.on("request", lambda r: requests.append(r.url))
        page.goto(page_path.as_uri())
        page.wait_for_load_state("load")
        plots = page.eval_on_selector_all("svg.plot", """svgs => svgs.map(s => {
            const box = s.getBoundingClientRect();
            const marks = [...s.querySelectorAll('.mark')].map(m => m.getBoundingClientRect())
                .filter(b => b.width > 0 || b.height > 0).length;
            return {title: s.querySelector('title').textContent, width: box.width, height: box.height, marks};
        })""")
        medians = page.eval_on_selector_all("table.results tr[data-case]", """rows => rows.map(r => [
            r.closest('table').dataset.run, r.dataset.case,
            (r.querySelector('td[data-col="median"]') || {}).textContent || null, r.dataset.outcome || 'ok',
            r.textContent])""")
        failure_marks = page.eval_on_selector_all("svg.plot .failure", "els => els.map(e => e.textContent)")
        seeds = page.eval_on_selector_all(".seed h3", "els => els.map(e => e.textContent)")
        summaries = page.eval_on_selector_all("table.summary:not(.across)", SUMMARY_CELLS)   # does parallelism pay
        across = page.eval_on_selector_all("table.summary.across", ACROSS_CELLS)          # which runtime wins
        order = page.evaluate("[...document.querySelectorAll('section')].map(s => "
                              "s.classList.contains('workload') ? 'workload' : s.id)")
        one_worker = page.eval_on_selector_all(".badge", """els => els.map(e => [e.closest('td').className,
            (e.closest('tr').dataset || {}).case || null])""")
        clusters = page.eval_on_selector_all('td[data-col="cluster start-up (not timed)"]', """tds => tds.map(
            td => [td.closest('table').dataset.run, td.closest('tr').dataset.case, td.textContent])""")
        notes = page.eval_on_selector_all(".group", """groups => groups.map(
            g => [g.id, [...g.querySelectorAll('p.note')].map(p => p.textContent)])""")
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOT), full_page=False)
        page.screenshot(path=str(SCREENSHOT.with_name("report-full.png")), full_page=True)
        browser.close()
    shutil.copy(page_path, SCREENSHOT.with_name("report.html"))
    return {"records": records, "console": console_messages, "plots": plots, "medians": medians,
            "failure_marks": failure_marks, "seeds": seeds, "requests": requests, "summaries": summaries,
            "order": order, "clusters": clusters, "one_worker": one_worker, "notes": notes, "known_run": known_run,
            "across": across, "across_run": across_run,
            "html": page_path.read_text()}


def _project(root: Path, runtime: str) -> Path:
    """A project root with the real workload specs and one fixture runtime of tests/fixtures."""
    (root / "impls").mkdir(parents=True)
    (root / "workloads").symlink_to(REPO / "workloads")
    (root / "impls" / runtime).symlink_to(REPO / "tests" / "fixtures" / runtime)
    return root


# The known run's samples: seq's ten hold one far outlier above nine within 8 µs of each other
# (Tukey: 0 low, 1 high); threads ×2 has three, fewer than the five a CI wants.
KNOWN_SEQ_NS = [1_000_000 + 1_000 * i for i in range(9)] + [3_000_000]
KNOWN_THREADS_NS = [2_000_000, 2_010_000, 2_020_000]


def _store_known_samples(db: str) -> int:
    """A run written through the store's own API with the samples above: its notes are certain,
    where a measured run's outliers depend on the machine's noise. Its id."""
    store = open_store(db)
    record = RunRecord(None, "2026-01-01T00:00:00+00:00", "smoke", {"scale": "smoke"}, {"cpu": "known"},
                       {"paced": {"version": "paced 1.0"}})
    store.begin_run(record)
    store.add_case(record.id, _known_case(Case("spawn-chain", "paced", "seq", "seq", {"n": 1000}), KNOWN_SEQ_NS))
    store.add_case(record.id, _known_case(Case("spawn-chain", "paced", "threads", "threads", {"n": 1000}, 2),
                                          KNOWN_THREADS_NS))
    store.finish_run(record.id, "complete", "2026-01-01T00:00:01+00:00")
    store.close()
    return record.id


def _known_case(case: Case, samples: list[int], processes: int = 1) -> CaseRun:
    """`processes` processes whose verified repetitions each took `samples` ns (a parallel case's
    workers overlapped)."""
    run = CaseRun(case, "1000")
    for index in range(processes):
        run.processes.append(ProcessMeasurement(index, sum(samples) + 5_000_000, sum(samples), 0, 8192, 1, 1, 0,
                                                "ok"))
        for rep, ns in enumerate(samples):
            extra = {"workers": case.workers, "workers_used": case.workers,
                     "busy": [[w, 0, ns] for w in range(case.workers)]} if case.workers else {}
            run.repetitions.append(Repetition(index, rep, ns, 1000, "1000", True, extra))
    return run


# Two runtimes at the same parameters (paced 1 ms, faulty 3 ms, three processes each) and a row
# that only paced ran (its own size).
PACED_NS = [1_000_000 + 2_000 * i for i in range(5)]
FAULTY_NS = [3_000_000 + 2_000 * i for i in range(5)]


def _store_two_runtimes(db: str) -> int:
    store = open_store(db)
    record = RunRecord(None, "2026-01-02T00:00:00+00:00", "smoke", {"scale": "smoke"}, {"cpu": "known"},
                       {"paced": {"version": "paced 1.0"}, "faulty": {"version": "faulty 1.0"}})
    store.begin_run(record)
    store.add_case(record.id, _known_case(Case("spawn-chain", "paced", "seq", "seq", {"n": 1000}), PACED_NS, 3))
    store.add_case(record.id, _known_case(Case("spawn-chain", "faulty", "ok", "seq", {"n": 1000}), FAULTY_NS, 3))
    store.add_case(record.id, _known_case(Case("spawn-chain", "paced", "seq", "seq", {"n": 2000},
                                               overrides=("n=2000: its own size",)), PACED_NS, 3))
    store.finish_run(record.id, "complete", "2026-01-02T00:00:01+00:00")
    store.close()
    return record.id


# Every "across runtimes" table: per row, whether it compares runtimes, and each cell's ratio.
ACROSS_CELLS = """tables => tables.map(t => ({run: t.dataset.run, rows: [...t.querySelectorAll('tr[data-anchor]')].map(
    tr => ({title: tr.querySelector('th.row').textContent, compares: tr.dataset.compares,
            cells: [...tr.querySelectorAll('td.heat')].map(td => ({runtime: td.dataset.runtime || null,
                ratio: td.dataset.ratio || null, star: !!td.querySelector('.star'), text: td.textContent,
                background: getComputedStyle(td).backgroundColor}))}))}))"""


# Every summary table as the browser shows it: per row, its link and what each cell says.
SUMMARY_CELLS = """tables => tables.map(t => ({run: t.dataset.run, rows: [...t.querySelectorAll('tr[data-anchor]')].map(
    tr => ({title: tr.querySelector('th.row').textContent, href: tr.querySelector('th.row a').getAttribute('href'),
            cells: [...tr.querySelectorAll('td.heat')].map(td => {
        const text = sel => (td.querySelector(sel) || {}).textContent || null;
        const link = td.querySelector('a'), href = link ? link.getAttribute('href') : null;
        const target = href && document.getElementById(href.slice(1));
        return {verdict: td.dataset.verdict, runtime: td.dataset.runtime || null, text: td.textContent,
                background: getComputedStyle(td).backgroundColor, backgroundImage: getComputedStyle(td).backgroundImage,
                model: text('.model'), median: text('.median'), speedup: text('.speedup'),
                rivalModel: text('.rival-model'), rivalMedian: text('.rival-median'),
                rivalSpeedup: text('.rival-speedup'), href,
                targetCases: target ? [...target.querySelectorAll('tr[data-case]')].map(r => r.dataset.case) : null};
    })}))}))"""


def _model(result) -> str:
    return result.case.model + (f" ×{result.case.workers}" if result.case.workers else "")


def _shown_rows(report, record):
    shown = [t for t in report["summaries"] if t["run"] == str(record.id)]
    assert len(shown) == 1, f"run {record.id} has {len(shown)} summary tables"
    return shown[0]["rows"]


def _rgb(css: str) -> tuple[int, ...]:
    return tuple(int(v) for v in re.findall(r"\d+", css)[:3])


def test_page_loads_with_no_console_errors_and_no_network(report):
    assert report["console"] == []
    assert all(url.startswith("file://") for url in report["requests"]), report["requests"]
    # Inline scripts only (the advise panel's): nothing is loaded from anywhere.
    assert not re.search(r"<script[^>]*\bsrc=", report["html"]) and "http://" not in report["html"].replace(
        'xmlns="http://www.w3.org/2000/svg"', "")


def test_every_plot_renders_with_a_non_zero_size_and_drawn_marks(report):
    assert report["plots"]
    for plot in report["plots"]:
        assert plot["width"] > 0 and plot["height"] > 0, plot
        assert plot["marks"] > 0, plot


def test_each_kind_of_plot_is_there(report):
    titles = " | ".join(p["title"] for p in report["plots"])
    assert "Distribution of every verified repetition — spawn-chain" in titles
    assert "Peak RSS vs n — spawn-chain/faulty/ok" in titles
    assert "Median time vs n — spawn-chain/faulty/ok" in titles
    assert "Speedup vs workers — spawn-chain/paced/threads" in titles


def test_table_cells_carry_the_medians_the_store_has(report):
    shown = {(run, case): median for run, case, median, _, _ in report["medians"]}
    checked = 0
    for record in report["records"]:
        for result in record.results:
            if result.case.workload == "noop":
                continue
            if result.stats is not None:
                assert shown[(str(record.id), result.case.key)] == format_duration(result.stats.median_ns)
                checked += 1
    assert checked >= 5


def test_failures_and_limits_appear_as_such(report):
    outcomes = {(case.split("/")[2].split("[")[0], outcome): text for _, case, _, outcome, text in report["medians"]}
    assert "Too many processes" in outcomes[("limit", "limit")]
    assert ("crash", "crash") in outcomes and ("hang", "timeout") in outcomes
    assert any("limit" in mark for mark in report["failure_marks"])     # the crosses and rows in the plots


def test_the_seeds_page_has_all_five_articles(report):
    assert [s.split(" — ")[0] for s in report["seeds"]] == ["000", "001", "002", "003", "004"]
    assert "not measured yet" in report["html"] and "parbench run --workload" in report["html"]


def _members(record, result) -> list:
    """The measured cases of one runtime in one table (a workload with the same params)."""
    return sorted((r for r in record.results if r.stats is not None and r.case.runtime == result.case.runtime
                   and r.case.workload == result.case.workload and r.case.params == result.case.params),
                  key=lambda r: r.stats.median_ns)


def _seq_of(record, result):
    """The reference of a case's speedup: its runtime's first other seq in the table."""
    return next((r for r in record.results if r.stats is not None and r is not result and r.case.family == "seq"
                 and r.case.runtime == result.case.runtime and r.case.workload == result.case.workload
                 and r.case.params == result.case.params), None)


def _summarised(report):
    """(record, row, cell, what the browser shows for that cell) for every cell of every summary."""
    for record in report["records"]:
        runtimes, rows = summary(record)
        shown_rows = _shown_rows(report, record)
        assert [r["title"] for r in shown_rows] == [row.title for row in rows]
        for row, shown_row in zip(rows, shown_rows):
            assert [c["runtime"] for c in shown_row["cells"] if c["verdict"] != "absent"] == [
                c.runtime for c in row.cells if c.verdict != "absent"]
            for cell, shown in zip(row.cells, shown_row["cells"]):
                yield record, shown_row, cell, shown


def test_the_page_opens_with_the_summary_then_the_seeds_then_the_details(report):
    assert report["order"][:2] == ["summary", "seeds"], report["order"]
    assert report["order"][2] == "workload"


def test_every_summary_cell_shows_the_best_model_median_and_speedup_of_the_stored_samples(report):
    speedups = 0
    for record, _, cell, shown in _summarised(report):
        assert shown["verdict"] == cell.verdict
        if cell.case_key is None:
            continue
        members = _members(record, next(r for r in record.results if r.case.key == cell.case_key))
        best = members[0]
        assert best.case.key == cell.case_key
        assert (shown["model"], shown["median"]) == (_model(best), format_duration(best.stats.median_ns)) == (
            cell.model, format_duration(cell.median_ns))
        seq = _seq_of(record, best)
        if seq is not None:
            assert shown["speedup"] == f"{seq.stats.median_ns / best.stats.median_ns:.2f}×" == f"{cell.speedup:.2f}×"
            speedups += 1
        else:
            assert shown["speedup"] is None
        if cell.rival is not None:                  # seq is the best: its fastest rival is shown
            rival = members[1]
            assert (shown["rivalModel"], shown["rivalMedian"], shown["rivalSpeedup"]) == (
                _model(rival), format_duration(rival.stats.median_ns),
                f"{best.stats.median_ns / rival.stats.median_ns:.2f}×")
            speedups += 1
    assert speedups >= 2


def test_a_cell_whose_cases_all_failed_shows_the_outcome_in_its_own_style(report):
    failed = [(cell, shown) for _, _, cell, shown in _summarised(report) if cell.case_key is None
              and cell.verdict != "absent"]
    assert {cell.verdict for cell, _ in failed} >= {"limit", "failed"}
    for cell, shown in failed:
        assert cell.outcome in shown["text"] and "repeating-linear-gradient" in shown["backgroundImage"]
    limit = next(shown for cell, shown in failed if cell.verdict == "limit")
    crash = next(shown for cell, shown in failed if cell.verdict == "failed")
    assert limit["backgroundImage"] != crash["backgroundImage"]


def test_each_summary_link_opens_the_table_of_its_cell(report):
    linked = 0
    for _, shown_row, cell, shown in _summarised(report):
        if cell.verdict == "absent":
            continue
        assert shown["href"] == shown_row["href"] and shown["href"].startswith("#")
        assert shown["targetCases"] is not None, f"{shown['href']} names no element of the page"
        assert cell.case_key in shown["targetCases"] if cell.case_key else any(
            f"/{cell.runtime}/" in key for key in shown["targetCases"])
        linked += 1
    assert linked >= 5


def test_faster_and_slower_than_seq_cells_differ_in_colour(report):
    cells = [shown for _, _, _, shown in _summarised(report)]
    faster = [c for c in cells if c["verdict"] == "faster" and c["runtime"] == "faulty"]
    slower = [c for c in cells if c["verdict"] == "slower" and c["runtime"] == "paced"]
    assert faster, "faulty's ok (2 ms) is faster than its slow seq (6 ms)"
    assert slower, "paced's seq (2 ms) beats threads ×2 (6 ms)"
    for cell in [c for c in cells if c["verdict"] in ("same", "no-seq", "seq-only")]:
        assert len(set(_rgb(cell["background"]))) == 1, cell          # grey: no hue
    fast, slow = _rgb(faster[0]["background"]), _rgb(slower[0]["background"])
    assert fast != slow
    assert fast[2] > fast[0] and slow[0] > slow[2]                   # blue faster, orange slower


def test_a_distributed_case_shows_its_cluster_start_up_apart_beside_the_local_cases(report):
    distributed = [(record, r) for record in report["records"] for r in record.results
                   if r.case.family == "distributed" and r.stats is not None]
    assert [r.case.key for _, r in distributed] == ["spawn-chain/paced/cluster[n=1000,workers=2]"]
    shown = {(run, case): text for run, case, text in report["clusters"]}
    for record, result in distributed:
        text = shown[(str(record.id), result.case.key)]
        assert text == format_duration(median_extra(result, "cluster_start_ns")) + " · local, 2 workers"
        local = [r for r in _members(record, result) if r.case.family != "distributed"]
        assert local and all(shown[(str(record.id), r.case.key)] == "–" for r in local)
    assert "before the timed region and is left out of every time above" in report["html"]


def test_detail_tables_carry_the_ceiling_the_tree_memory_and_the_notes(report):
    html = report["html"]
    assert 'data-col="vs ceiling"' in html and 'data-col="peak memory (tree)"' in html
    from html import escape
    from parbench.report.rows import ceiling_note
    for record in report["records"]:
        for result in record.results:
            if result.stats is not None and ceiling_note(result):     # the page puts the machine's first
                assert escape(ceiling_note(result).removeprefix("measured beside it: ")) in html


def test_a_case_that_ran_on_one_worker_is_flagged_in_the_summary_and_its_table(report):
    flagged = {key for record in report["records"] for r in record.results if one_worker(r)
               for key in [r.case.key]}
    assert flagged, "hostile's one-worker model reports workers_used = 1"
    assert {case for _, case in report["one_worker"] if case} == flagged          # its row in the details
    assert any("heat" in cls for cls, _ in report["one_worker"])                   # its summary cell


def _notes_of_known_run(report) -> list[str]:
    [notes] = [notes for group, notes in report["notes"] if group.endswith(f"-run{report['known_run']}")]
    return notes


def test_a_far_repetition_is_noted_as_a_tukey_outlier_and_kept(report):
    [seq] = [n for n in _notes_of_known_run(report) if n.startswith("paced seq: ")]
    assert "1 outlier(s) of 10 (Tukey: 0 low, 1 high), kept" in seq


def test_a_case_of_fewer_than_five_samples_says_its_ci_is_wide(report):
    [threads] = [n for n in _notes_of_known_run(report) if n.startswith("paced threads ×2: ")]
    assert "only 3 samples: the CI is wide by necessity" in threads
    assert "outlier" not in threads


def test_the_across_runtimes_view_colours_each_cell_by_its_ratio_to_the_rows_fastest(report):
    shown = [t for t in report["across"] if t["run"] == str(report["across_run"])]
    assert len(shown) == 1
    rows = {row["title"].split("one runtime")[0].strip(): row for row in shown[0]["rows"]}
    both = next(row for title, row in rows.items() if "1000" in title)
    assert both["compares"] == "true"
    cells = {c["runtime"]: c for c in both["cells"] if c["runtime"]}
    assert cells["paced"]["star"] and not cells["faulty"]["star"]
    assert float(cells["paced"]["ratio"]) == 1.0
    assert abs(float(cells["faulty"]["ratio"]) - FAULTY_NS[2] / PACED_NS[2]) < 0.01
    assert f"{FAULTY_NS[2] / PACED_NS[2]:.2f}×" in cells["faulty"]["text"] and "portable" not in cells["faulty"]["text"]
    assert _rgb(cells["paced"]["background"]) != _rgb(cells["faulty"]["background"])
    own = next(row for title, row in rows.items() if "2000" in title)
    assert own["compares"] == "false" and "one runtime's own size" in own["title"]
    assert not any(c["star"] for c in own["cells"])


def test_both_summary_views_are_on_the_page(report):
    assert report["across"] and report["summaries"]
    assert {t["run"] for t in report["across"]} == {t["run"] for t in report["summaries"]}


# --- a page of exec runs: about what they measured, its plots legible at two widths ----------------
# Every text of every plot, as the browser lays it out: the plot's box, its title lines, its legend
# entries (each with its swatch's box) and its box-plot labels.
PLOT_TEXTS = """svgs => svgs.map(s => {
    const box = r => { const b = r.getBoundingClientRect(); return [b.left, b.top, b.right, b.bottom]; };
    return {title: s.querySelector('title').textContent, box: box(s),
            titles: [...s.querySelectorAll('text.plot-title')].map(box),
            legends: [...s.querySelectorAll('text.legend')].map(t => [box(t), box(t.previousElementSibling)]),
            labels: [...s.querySelectorAll('text.box-label')].map(box),
            errorbars: s.querySelectorAll('.errorbar').length, bands: s.querySelectorAll('polygon.band').length};
})"""


@pytest.fixture(scope="module")
def exec_pages(tmp_path_factory) -> dict:
    """Two exec --fit runs of tests/fixtures/spinner under a long path (its command lines make
    long titles and legends), their page opened at 1280 and 800 px wide."""
    sync_api = require_module("playwright.sync_api", "pip install -e '.[test]'")
    require(Path(CHROMIUM).exists(), f"{CHROMIUM} is not installed (apt-get install -y chromium)")
    tmp = tmp_path_factory.mktemp("exec-html")
    folder = tmp / "a-folder-with-a-rather-long-name" / "and-another-below-it"
    folder.mkdir(parents=True)
    spinner = folder / "spinner"
    subprocess.run(["cc", "-O2", "-pthread", "-o", str(spinner), str(REPO / "tests/fixtures/spinner/spinner.c")],
                   check=True)
    db = str(tmp / "exec.sqlite")
    parbench("exec", "-N", "-r", "3", "--fit", "workers=threads", "-L", "threads", "1,2", "--db", db,
             f"{spinner} 20000 40000 {{threads}}", check=True)
    parbench("exec", "-N", "-r", "3", "--fit", "size", "--refine", "0", "-L", "size", "5000,20000,80000", "--db", db,
             f"{spinner} {{size}} 0 1", f"{spinner} 20000 0 1", check=True)
    page_path = tmp / "exec.html"
    parbench("report", "1", "2", "--html", str(page_path), "--db", db, check=True)
    found = {}
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        for width in (1280, 800):
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.goto(page_path.as_uri())
            page.wait_for_load_state("load")
            found[width] = {"plots": page.eval_on_selector_all("svg.plot", PLOT_TEXTS),
                            "sections": page.evaluate("[...document.querySelectorAll('section')].map(s => s.id)")}
            page.screenshot(path=str(SCREENSHOT.with_name(f"exec-report-{width}.png")), full_page=True)
        browser.close()
    return found


def _inside(inner, outer, slack: float = 1.0) -> bool:
    return (inner[0] >= outer[0] - slack and inner[1] >= outer[1] - slack
            and inner[2] <= outer[2] + slack and inner[3] <= outer[3] + slack)


def _overlap(a, b) -> bool:
    return a[0] < b[2] - 0.5 and b[0] < a[2] - 0.5 and a[1] < b[3] - 0.5 and b[1] < a[3] - 0.5


def test_an_exec_page_shows_what_it_measured_first_and_no_seed_articles(exec_pages):
    for width, page in exec_pages.items():
        assert page["sections"][0] == "w-exec" and "seeds" not in page["sections"], (width, page["sections"])


def test_an_exec_speedup_plot_has_error_bars_and_the_band_of_f(exec_pages):
    [speedup] = [p for p in exec_pages[1280]["plots"] if p["title"].startswith("Speedup vs workers")]
    assert speedup["errorbars"] >= 1 and speedup["bands"] == 1


@pytest.mark.parametrize("width", [1280, 800])
def test_no_title_legend_or_label_of_an_exec_plot_is_clipped_or_overprinted(exec_pages, width):
    plots = exec_pages[width]["plots"]
    assert plots and any(p["legends"] for p in plots)
    for plot in plots:
        texts = plot["titles"] + [text for text, _ in plot["legends"]] + plot["labels"]
        for text in texts:
            assert _inside(text, plot["box"]), (width, plot["title"], text, plot["box"])
        entries = [text for text, _ in plot["legends"]] + [swatch for _, swatch in plot["legends"]]
        for i, a in enumerate(entries):
            for b in entries[i + 1:]:
                assert not _overlap(a, b), (width, plot["title"], a, b)
        for i, a in enumerate(plot["titles"]):
            for b in plot["titles"][i + 1:]:
                assert not _overlap(a, b), (width, plot["title"])
