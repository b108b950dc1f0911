"""advise/export.py: the advice as one JSON document (schemas/advise.schema.json), times in ns and
memory in bytes as the store keeps them."""
import json
import math
from pathlib import Path

from parbench.advise.advice import Advice, Ranking
from parbench.advise.check import CheckRow
from parbench.advise.export import SCHEMA_VERSION, document, render
from parbench.advise.measure import Missing
from parbench.advise.predict import Band, Prediction, Unpredictable
from parbench.advise.question import Question
from parbench.advise.ranking import rank

REPO = Path(__file__).resolve().parents[3]


def prediction(model: str, median: float, memory: Band | None = None, workers: int | None = 4) -> Prediction:
    return Prediction("rt", model, "threads" if workers else "seq", {"kernel": "portable"}, workers,
                      Band(median, median * 0.9, median * 1.1), "measured", False, [1e6], workers, "measured",
                      memory, "line over 3 values" if memory else "", [7])


def advice(by_memory: bool = False) -> Advice:
    fast, slow = prediction("pool", 10e6, Band(2e6, 1.9e6, 2.1e6)), prediction("seq", 40e6, workers=None)
    question = Question("w", "size", 1_000_000, {"kernel": "portable"}, 4, ("rt",), ("threads",), by_memory)
    return Advice(question, {"hostname": "box", "cpu": "CPU", "logical_cpus": 4, "secret": "x"}, 4,
                  [Ranking({"kernel": "portable"}, rank([slow, fast]),
                           [Unpredictable("rt", "actors", "actors", {"kernel": "portable"}, "measured at ×2 only")])],
                  [7], [Missing("a reason", ("sweep", "workers", "--workload", "w"))], note="a note")


def test_the_document_follows_its_schema():
    import jsonschema
    checks = [CheckRow(prediction("pool", 10e6), Band(10.5e6, 10e6, 11e6))]
    schema = json.loads((REPO / "schemas" / "advise.schema.json").read_text())
    jsonschema.validate(json.loads(render(advice(), checks)), schema)


def test_the_question_the_machine_and_the_runs_are_carried_as_asked():
    doc = document(advice())
    assert doc["schema_version"] == SCHEMA_VERSION and doc["generator"] == "parbench advise"
    assert doc["question"]["value"] == 1_000_000 and doc["question"]["runtimes"] == ["rt"]
    assert doc["machine"] == {"hostname": "box", "cpu": "CPU", "logical_cpus": 4}
    assert (doc["cpus"], doc["runs"], doc["note"]) == (4, [7], "a note")


def test_entries_come_ranked_with_times_in_nanoseconds_and_the_margin_to_the_next():
    first, second = document(advice())["rankings"][0]["entries"]
    assert (first["rank"], first["model"], first["workers"]) == (1, "pool", 4)
    assert first["time_ns"] == {"median": 10e6, "low": 9e6, "high": 10e6 * 1.1}
    assert first["peak_memory_bytes"]["median"] == 2e6 and first["memory_basis"] == "line over 3 values"
    assert first["margin_to_next"]["significant"] is True and math.isclose(first["margin_to_next"]["ratio"], 4.0)
    assert second["margin_to_next"] is None and second["peak_memory_bytes"] is None


def test_a_ranking_says_what_it_ranks_by_and_what_it_could_not_predict():
    by_time = document(advice())["rankings"][0]
    assert by_time["ranked_by"] == "time" and by_time["not_predicted"][0]["reason"] == "measured at ×2 only"
    assert document(advice(by_memory=True))["rankings"][0]["ranked_by"] == "peak_memory"


def test_missing_sweeps_carry_their_command_with_the_store_where_given():
    assert document(advice())["missing"] == [{"reason": "a reason", "command": "./parbench sweep workers --workload w"}]
    assert document(advice(), db="/tmp/s.sqlite")["missing"][0]["command"].endswith("--db /tmp/s.sqlite")


def test_checks_carry_the_measured_band_and_whether_it_fell_inside():
    doc = document(advice(), [CheckRow(prediction("pool", 10e6), Band(10.5e6, 10e6, 11e6)),
                              CheckRow(prediction("seq", 40e6, workers=None), None, note="not run")])
    inside, not_run = doc["checks"]
    assert inside["measured_ns"] == {"median": 10.5e6, "low": 10e6, "high": 11e6} and inside["inside"] is True
    assert not_run["measured_ns"] is None and not_run["inside"] is None and not_run["note"] == "not run"
    assert document(advice())["checks"] == []


def test_the_rendered_text_is_one_json_document_ending_in_a_newline():
    text = render(advice())
    assert text.endswith("}\n") and json.loads(text) == json.loads(json.dumps(document(advice())))


def test_the_document_says_which_figure_it_answers_and_carries_the_other_beside_each_entry():
    first_run = advice()
    first_run.question = Question("w", "size", 1_000_000, {"kernel": "portable"}, 4, answers="first-run")
    first_run.rankings[0].other = {"rt pool ×4": Band(3e6, 2e6, 4e6)}
    doc = json.loads(render(first_run))
    assert doc["answers"] == doc["question"]["answers"] == "first-run"
    pool, seq = doc["rankings"][0]["entries"]
    assert pool["other_figure"] == {"figure": "steady-state", "time_ns": {"median": 3e6, "low": 2e6, "high": 4e6}}
    assert seq["other_figure"] == {"figure": "steady-state", "time_ns": None}
    import jsonschema
    jsonschema.validate(doc, json.loads((REPO / "schemas" / "advise.schema.json").read_text()))
    assert json.loads(render(advice()))["answers"] == "steady-state"
