"""`parbench advise --for first-run` end to end, on processes whose first repetitions are known
(tests/fixtures/warming): slowdown starts at 10 ms, flat at 20 ms, warm-up at 60 ms, and all
three settle at 20 ms. A short-lived command's ranking is theirs by the first repetition; the
steady figure stands beside each."""
import json
import re
from pathlib import Path

import pytest

from conftest import parbench

REPO = Path(__file__).resolve().parents[2]
MS = 1e6


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("advise-first-run")
    (root / "impls").mkdir()
    (root / "workloads").symlink_to(REPO / "workloads")
    (root / "impls" / "warming").symlink_to(REPO / "tests" / "fixtures" / "warming")
    db = str(root / "results.sqlite")
    parbench("run", "--workload", "spawn-chain", "--runtime", "warming", "--scale", "quick", "--processes", "2",
             "--warmup-budget", "0.5", "--param", "n=100", "--db", db, root=root, check=True)
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
