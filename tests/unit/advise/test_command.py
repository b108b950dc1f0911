"""advise/command.py: `parbench advise` from its request to its exit code, on a real SQLite store
of known runs; what stops it is one AdviseError line."""
import json

import pytest
from advise_records import run_of

from parbench.advise.command import AdviseError, AdviseRequest, _db_shown, answer
from parbench.project import DEFAULT_DB
from parbench.store import open_store

MEASURED = [("seq", 1000, None, 2_000_000), ("seq", 4000, None, 8_000_000),
            ("threads", 1000, 2, 1_000_000), ("threads", 4000, 2, 4_000_000)]


@pytest.fixture
def db(tmp_path) -> str:
    """A store holding one complete keygen run measured at count=1000 and 4000."""
    path = str(tmp_path / "results.sqlite")
    store = open_store(path)
    record = run_of("keygen", "count", MEASURED)
    run_id = store.begin_run(record)
    for result in record.results:
        store.add_case(run_id, result.run)
    store.finish_run(run_id, "complete", "2026-01-01T00:01:00+00:00")
    store.close()
    return path


def request(db: str, *params: str, **fields) -> AdviseRequest:
    return AdviseRequest(fields.pop("workload", "keygen"), params or ("count=2000",), 2, db, **fields)


def test_an_answered_question_prints_its_ranking_and_exits_0(db):
    said = []
    assert answer(request(db), said.append) == 0
    text = "\n".join(said)
    assert "keygen at count=2,000 keys on 2 cores" in text
    assert text.index("1. rt threads ×2") < text.index("2. rt seq")


def test_nothing_to_predict_from_exits_1_and_says_why(tmp_path):
    empty = str(tmp_path / "empty.sqlite")
    open_store(empty).close()
    said = []
    assert answer(request(empty), said.append) == 1
    assert "no stored case of keygen matches" in "\n".join(said)


def test_the_json_export_is_written_to_its_file_beside_the_console_text(db, tmp_path):
    said = []
    answer(request(db, export_json=str(tmp_path / "advice.json")), said.append)
    document = json.loads((tmp_path / "advice.json").read_text())
    assert [e["model"] for e in document["rankings"][0]["entries"]] == ["threads", "seq"] and said


def test_json_to_standard_output_holds_the_json_alone(db, capsys):
    said = []
    answer(request(db, export_json="-"), said.append)
    assert said == [] and json.loads(capsys.readouterr().out)["question"]["value"] == 2000


def test_a_json_target_that_cannot_be_written_is_one_line_error(db, tmp_path):
    (tmp_path / "a-file").write_text("")
    with pytest.raises(AdviseError, match="cannot write .*a-file/advice.json"):
        answer(request(db, export_json=str(tmp_path / "a-file" / "advice.json")), lambda text: None)


def test_a_missing_store_is_refused_with_how_to_make_one(tmp_path):
    with pytest.raises(AdviseError, match="no results store at .*parbench run"):
        answer(request(str(tmp_path / "never.sqlite")), lambda text: None)
    assert not (tmp_path / "never.sqlite").exists()


@pytest.mark.parametrize("fields, message", [({"workload": "nope"}, "unknown workload 'nope'"),
                                             ({"params": ("count=lots",)}, "--param count wants a number")])
def test_a_bad_question_is_an_advise_error(db, fields, message):
    params = fields.pop("params", ())
    with pytest.raises(AdviseError, match=message):
        answer(request(db, *params, **fields), lambda text: None)


def test_the_printed_commands_name_the_store_only_where_it_is_not_the_default():
    assert _db_shown(str(DEFAULT_DB)) is None
    assert _db_shown("/tmp/mine.sqlite") == "/tmp/mine.sqlite"


def test_a_store_password_never_reaches_the_printed_commands():
    assert _db_shown("postgresql://bench:s3cret@host/db") == "postgresql://bench:***@host/db"
