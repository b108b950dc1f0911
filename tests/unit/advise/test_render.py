"""advise/render.py and advise/export.py: what the console and the JSON say of one known advice."""
import json
from pathlib import Path

from parbench.advise.advice import Advice, Ranking
from parbench.advise.export import render as render_json
from parbench.advise.measure import Missing
from parbench.advise.predict import Band, Prediction, Unpredictable
from parbench.advise.question import Question
from parbench.advise.ranking import rank
from parbench.advise.render import advice_lines

REPO = Path(__file__).resolve().parents[3]


def known_advice() -> Advice:
    fast = Prediction("rt", "threads", "threads", {"kernel": "portable"}, 8, Band(21e6, 18e6, 25e6),
                      "linear per item", True, [1e6, 4e6], 2, "not measured: USL fit from 1–2 workers",
                      Band(50 << 20, 48 << 20, 52 << 20), "line over 3 values", [3, 4])
    slow = Prediction("rt", "processes", "processes", {"kernel": "portable"}, 8, Band(30e6, 27e6, 33e6),
                      "measured", False, [4e6], 8, "measured", None, "", [4])
    tied = Prediction("rt", "seq", "seq", {"kernel": "portable"}, None, Band(31e6, 29e6, 34e6),
                      "interpolated", False, [1e6, 8e6], None, "", None, "", [4])
    lacking = Unpredictable("rt", "actors", "actors", {"kernel": "portable"}, "measured at ×2 only")
    question = Question("w", "size", 40_000_000, {"kernel": "portable"}, 8)
    return Advice(question, {"hostname": "box", "cpu": "CPU"}, 2,
                  [Ranking({"kernel": "portable"}, rank([slow, fast, tied]), [lacking])], [3, 4],
                  [Missing("a reason", ("sweep", "size", "--workload", "w"))])


def test_the_console_ranks_with_intervals_margins_ties_and_evidence():
    text = "\n".join(advice_lines(known_advice(), "bytes"))
    assert "w at size=40,000,000 bytes on 8 cores" in text and "evidence: runs 3, 4 of box (CPU, 2 logical CPUs)" in text
    assert "1. rt threads ×8                21 ms [18 ms – 25 ms]" in text
    assert "1.4× [1.1–1.8] ahead of rt processes ×8" in text
    assert "2. rt processes ×8" in text and "no significant difference from rt seq" in text
    assert "2. rt seq" in text
    assert "EXTRAPOLATED: linear per item from 2 measured values" in text
    assert "×2 scaled to ×8 by not measured: USL fit from 1–2 workers" in text
    assert "rt actors: not predicted: measured at ×2 only" in text
    assert "./parbench sweep size --workload w" in text


def test_the_json_follows_its_schema_and_carries_the_same_numbers():
    import jsonschema
    document = json.loads(render_json(known_advice()))
    jsonschema.validate(document, json.loads((REPO / "schemas" / "advise.schema.json").read_text()))
    first = document["rankings"][0]["entries"][0]
    assert (first["model"], first["rank"], first["time_ns"]) == ("threads", 1, {"median": 21e6, "low": 18e6, "high": 25e6})
    assert first["margin_to_next"]["significant"] and document["missing"][0]["command"] == "./parbench sweep size --workload w"


def test_the_header_names_the_figure_answered_and_each_entry_shows_the_other_or_that_it_is_missing():
    first_run = known_advice()
    first_run.question = Question("w", "size", 40_000_000, {"kernel": "portable"}, 8, answers="first-run")
    first_run.rankings[0].other = {"rt threads ×8": Band(5e6, 4e6, 6e6)}
    text = "\n".join(advice_lines(first_run, "bytes"))
    assert "ranked by predicted first-run time" in text and "steady-state median" not in text
    assert "      steady state: 5 ms [4 ms – 6 ms]" in text
    assert "      steady state: not stored for these runs" in text        # processes, seq
    steady = "\n".join(advice_lines(known_advice(), "bytes"))
    assert "ranked by predicted steady-state median time" in steady and "      first run: not stored" in steady
