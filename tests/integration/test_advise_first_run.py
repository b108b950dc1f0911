"""`parbench advise --for first-run` end to end, on processes whose first repetitions are known
(tests/fixtures/warming): slowdown starts at 10 ms, flat at 20 ms, warm-up at 60 ms, and all
three settle at 20 ms. A short-lived command's ranking is theirs by the first repetition; the
steady figure stands beside each. The HTML report's advise panel, toggled to "first run" in
Chromium, answers the same."""
import json
import re
import shutil

import pytest

from conftest import advise_panel, parbench
from parbench.records import Case, CaseRun, ProcessMeasurement, Repetition, RunRecord
from parbench.store import open_store

MS = 1e6


@pytest.fixture(scope="module")
def store(warming_run):
    root, db, _ = warming_run
    return root, db


def advice(store, *args):
    root, db = store
    return parbench("advise", "--workload", "spawn-chain", "--param", "n=100", "--cores", "1", *args, "--db", db,
                    root=root, env={"COLUMNS": "300"}, check=True)


def test_first_run_ranks_by_the_first_repetition_with_the_steady_figure_beside(store):
    document = json.loads(advice(store, "--for", "first-run", "--export-json", "-").stdout)
    assert document["answers"] == "first-run"
    entries = {e["model"]: e for r in document["rankings"] for e in r["entries"]}
    order = [e["model"] for r in document["rankings"] for e in r["entries"] if e["model"] != "unsettled"]
    assert order == ["slowdown", "flat", "warm-up"]
    assert 9 * MS <= entries["slowdown"]["time_ns"]["median"] <= 13 * MS
    assert 55 * MS <= entries["warm-up"]["time_ns"]["median"] <= 70 * MS
    steady = entries["warm-up"]["other_figure"]
    assert steady["figure"] == "steady-state" and 18 * MS <= steady["time_ns"]["median"] <= 26 * MS


def test_the_console_names_the_figure_it_answers_and_the_default_stays_steady_state(store):
    first = advice(store, "--for", "first-run").stdout
    assert "ranked by predicted first-run time" in first and "steady state: " in first
    steady = advice(store).stdout
    assert "ranked by predicted steady-state median time" in steady
    # the entry's own line, not a neighbour's "no significant difference from warming warm-up"
    assert re.search(r"\d\. warming warm-up +20\.\d ms .*\n +first run: 6\d\.\d ms", steady)


# The HTML report's advise panel under its "first run" toggle, in a real headless Chromium, against
# `parbench advise --for first-run` (and under its default, against `parbench advise`): the same
# check tests/integration/test_advise.py makes for the steady figure.
BEFORE_PROTOCOL_4 = "before-protocol-4"    # a model stored with no first repetition

# The panel's rows as the browser shows them: the ranked figure, the other beside it.
PANEL_ROWS = """rows => rows.map(r => ({rank: +r.dataset.rank, name: r.dataset.name, figure: r.dataset.figure,
    median: +r.dataset.median, low: +r.dataset.low, high: +r.dataset.high, text: r.textContent,
    other: r.dataset.otherMedian === undefined ? null
        : {median: +r.dataset.otherMedian, low: +r.dataset.otherLow, high: +r.dataset.otherHigh}}))"""
NOT_PREDICTED_ROWS = "rows => rows.map(r => ({name: r.dataset.name, text: r.textContent}))"


def _store_before_protocol_4(db: str) -> None:
    """A run of this machine whose case holds steady repetitions (20 ms) and no first repetition,
    as runs from before protocol 4 were stored."""
    store = open_store(db)
    machine = store.load_run(store.run_ids()[0]).machine
    record = RunRecord(None, "2026-01-01T00:00:00+00:00", "quick", {"scale": "quick"}, machine,
                       {"warming": {"version": "warming 1.0"}})
    store.begin_run(record)
    run = CaseRun(Case("spawn-chain", "warming", BEFORE_PROTOCOL_4, "seq", {"n": 100}), "100")
    for process in range(2):
        run.processes.append(ProcessMeasurement(process, 150_000_000, 1_000_000, 0, 8192, 1, 1, 0, "ok"))
        run.repetitions += [Repetition(process, rep, 20_000_000 + 10_000 * rep, 100, "100", True) for rep in range(5)]
    store.add_case(record.id, run)
    store.finish_run(record.id, "complete", "2026-01-01T00:00:01+00:00")
    store.close()


@pytest.fixture(scope="module")
def panel(store, tmp_path_factory) -> dict:
    """The report of the warming run and a run from before protocol 4: its panel at n = 100 on one
    core, as it opens, then under "first run", then under "steady state" again."""
    root, measured = store
    tmp = tmp_path_factory.mktemp("advise-first-run-panel")
    db = str(tmp / "results.sqlite")
    shutil.copy(measured, db)
    _store_before_protocol_4(db)
    page_path = tmp / "report.html"
    parbench("report", *map(str, open_store(db).run_ids()), "--html", str(page_path), "--db", db, root=root,
             check=True)
    shown = {}
    with advise_panel(page_path, "spawn-chain") as (page, problems):
        page.fill("#advise-form input[name=value]", "100")
        page.fill("#advise-form input[name=cores]", "1")
        for setting in ("as opened", "first-run", "steady-state"):
            if setting != "as opened":
                page.check(f"#advise-form input[name=figure][value={setting}]")
            shown[setting] = {
                "ranked": page.eval_on_selector_all("table.advise tbody tr[data-rank]", PANEL_ROWS),
                "not_predicted": page.eval_on_selector_all("table.advise tbody tr.not-predicted", NOT_PREDICTED_ROWS),
                "curves": page.eval_on_selector_all("svg.advise-curves polyline.curve", "ps => ps.length")}
    return {"root": root, "db": db, "shown": shown, "problems": problems}


def _command(panel: dict, *args: str) -> dict:
    return json.loads(parbench("advise", "--workload", "spawn-chain", "--param", "n=100", "--cores", "1", *args,
                               "--export-json", "-", "--db", panel["db"], root=panel["root"], check=True).stdout)


def _agrees_with_the_command(shown: dict, document: dict) -> None:
    [ranking] = document["rankings"]
    expected = ranking["entries"]
    assert [(r["rank"], r["name"]) for r in shown["ranked"]] == [
        (e["rank"], f"{e['runtime']} {e['model']}") for e in expected]
    for row, entry in zip(shown["ranked"], expected):
        assert row["figure"] == document["answers"]
        for key in ("median", "low", "high"):
            assert row[key] == pytest.approx(entry["time_ns"][key], rel=1e-9), (row["name"], key)
        other = entry["other_figure"]["time_ns"]
        if other is None:
            assert row["other"] is None and "not stored for these runs" in row["text"], row
        else:
            assert row["other"] == pytest.approx(other, rel=1e-9), row["name"]
    assert [r["name"] for r in shown["not_predicted"]] == [
        f"{u['runtime']} {u['model']}" for u in ranking["not_predicted"]]
    assert shown["curves"] == min(6, len(expected))


def test_the_panel_under_first_run_ranks_as_advise_for_first_run_does(panel):
    assert panel["problems"] == []
    shown = panel["shown"]["first-run"]
    _agrees_with_the_command(shown, _command(panel, "--for", "first-run"))
    order = [r["name"] for r in shown["ranked"] if r["name"] != "warming unsettled"]
    assert order == ["warming slowdown", "warming flat", "warming warm-up"]
    warm_up = next(r for r in shown["ranked"] if r["name"] == "warming warm-up")
    assert 55 * MS <= warm_up["median"] <= 70 * MS and 18 * MS <= warm_up["other"]["median"] <= 26 * MS
    assert "steady state: " in warm_up["text"]


def test_a_candidate_without_first_run_figures_is_not_predicted_under_first_run_never_ranked_by_its_steady(panel):
    shown = panel["shown"]
    [lacking] = shown["first-run"]["not_predicted"]
    assert lacking["name"] == f"warming {BEFORE_PROTOCOL_4}" and "no first-run figures stored for its 1 case(s)" in lacking["text"]
    assert f"warming {BEFORE_PROTOCOL_4}" not in [r["name"] for r in shown["first-run"]["ranked"]]
    steady = next(r for r in shown["steady-state"]["ranked"] if r["name"] == f"warming {BEFORE_PROTOCOL_4}")
    assert steady["other"] is None and "first run: not stored for these runs" in steady["text"]


def test_the_panel_opens_on_steady_state_and_toggles_back_to_it_as_advise_answers_by_default(panel):
    document = _command(panel)
    assert document["answers"] == "steady-state"
    for setting in ("as opened", "steady-state"):
        _agrees_with_the_command(panel["shown"][setting], document)
    warm_up = next(r for r in panel["shown"]["as opened"]["ranked"] if r["name"] == "warming warm-up")
    assert 18 * MS <= warm_up["median"] <= 26 * MS and 55 * MS <= warm_up["other"]["median"] <= 70 * MS
