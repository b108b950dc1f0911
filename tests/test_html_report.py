"""The HTML report, built from a real store by the real CLI and opened in a real headless Chromium."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import REPO, parbench
from parbench import runtimes as runtimes_module
from parbench import suite
from parbench.store import open_store
from parbench.units import format_duration

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--no-first-run"]
SCREENSHOT = REPO / "results" / "test-artifacts" / "report.png"


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict:
    """A store with failures, a task sweep and (where python is here) a worker sweep; its page."""
    sync_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip("chromium is not installed (apt-get install -y chromium)")
    tmp = tmp_path_factory.mktemp("html")
    root = tmp / "project"
    (root / "impls").mkdir(parents=True)
    (root / "workloads").symlink_to(REPO / "workloads")
    (root / "impls" / "faulty").symlink_to(REPO / "tests" / "fixtures" / "faulty")
    db = str(tmp / "results.sqlite")
    parbench("run", "--workload", "spawn-chain", "--model", "ok", "--model", "slow", "--model", "crash",
             "--model", "limit", "--model", "hang", "--scale", "smoke", "--processes", "2", "--timeout", "2",
             "--db", db, root=root)
    parbench("sweep", "tasks", "--workload", "spawn-chain", "--model", "ok", "--model", "limit",
             "--counts", "1000,4000,16000", "--scale", "smoke", "--processes", "2", "--db", db,
             root=root, check=True)
    if runtimes_module.load_all()["python"].available:
        parbench("sweep", "workers", "--workload", "sdes-ecb", "--runtime", "python", "--model", "processes",
                 "--param", "cipher=table", "--scale", "smoke", "--workers", "1,2", "--processes", "1",
                 "--repeat", "2", "--db", db, check=True)
    store = open_store(db)
    run_ids = [str(i) for i in store.run_ids()]
    page_path = tmp / "report.html"
    done = parbench("report", *run_ids, "--html", str(page_path), "--db", db, check=True)
    assert f"wrote {page_path}" in done.stdout
    records = [suite.load_analyzed(store, i) for i in run_ids]
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
        SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(SCREENSHOT), full_page=False)
        page.screenshot(path=str(SCREENSHOT.with_name("report-full.png")), full_page=True)
        browser.close()
    shutil.copy(page_path, SCREENSHOT.with_name("report.html"))
    return {"records": records, "console": console_messages, "plots": plots, "medians": medians,
            "failure_marks": failure_marks, "seeds": seeds, "requests": requests,
            "html": page_path.read_text()}


def test_page_loads_with_no_console_errors_and_no_network(report):
    assert report["console"] == []
    assert all(url.startswith("file://") for url in report["requests"]), report["requests"]
    assert "<script" not in report["html"] and "http://" not in report["html"].replace(
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
    if any(r.kind == "sweep" and r.options.get("sweep") == "workers" for r in report["records"]):
        assert "Speedup vs workers — sdes-ecb/python/processes" in titles


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
