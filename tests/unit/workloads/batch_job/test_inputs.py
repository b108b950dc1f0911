"""batch_job/inputs.py: seeded documents, the SQLite template they start from, the expected rows,
and the check of what a job left in its database."""
import json
import sqlite3

import pytest

from parbench.workloads.batch_job import inputs
from parbench.workloads.batch_job.oracle import align_annotations, annotation_rows_digest


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PARBENCH_CACHE", str(tmp_path / "inputs"))
    return tmp_path / "inputs"


def test_documents_are_the_same_for_a_seed_and_differ_for_another():
    assert inputs.make_documents(4, 100, 3, seed=2) == inputs.make_documents(4, 100, 3, seed=2)
    assert inputs.make_documents(4, 100, 3, seed=2) != inputs.make_documents(4, 100, 3, seed=3)


def test_each_old_text_has_the_length_asked_and_its_spans_lie_within_it_on_word_starts():
    for d in inputs.make_documents(5, 120, 4, seed=2):
        old = d["old"]
        assert len(old) == 120 and len(d["annotations"]) == 4
        for begin, end, label in d["annotations"]:
            assert 0 <= begin < end <= len(old) and label in inputs.LABELS
            assert begin == 0 or old[begin - 1] == " "


def test_the_template_holds_every_document_pending_and_every_annotation(tmp_path):
    documents = inputs.make_documents(3, 80, 2, seed=2)
    inputs.write_sqlite(tmp_path / "t.sqlite", documents)
    annotations, rows = inputs.sqlite_tables(tmp_path / "t.sqlite")
    assert rows == [(d["id"], 80, 2, "pending") for d in documents] and len(annotations) == 6
    assert inputs.sqlite_annotations_digest(tmp_path / "t.sqlite") == annotation_rows_digest(annotations)


def test_ensure_writes_the_documents_the_template_and_the_expected_rows_once(cache):
    batch = inputs.ensure(3, 80, 2)
    assert sorted(p.name for p in batch.docs_dir.iterdir()) == ["0.json", "1.json", "2.json"]
    assert json.loads((batch.docs_dir / "1.json").read_text())["new"] == batch.documents[1]["new"]
    digest, rows = inputs.expected_tables(batch.documents)
    assert batch.expected_checksum == digest and batch.expected_documents == {k: tuple(v) for k, v in rows.items()}
    assert all(status == "aligned" for _, _, status in batch.expected_documents.values())
    inode = batch.template_db.stat().st_ino
    assert inputs.ensure(3, 80, 2).template_db.stat().st_ino == inode               # made once, then reused
    assert not list(cache.glob("*.tmp"))


def test_a_process_gets_a_writable_copy_of_the_sealed_template(cache, tmp_path):
    batch = inputs.ensure(2, 40, 1)
    copy = inputs.fresh_sqlite_copy(batch, tmp_path / "job.sqlite")
    db = sqlite3.connect(copy)
    db.execute("UPDATE documents SET status = 'aligned'")
    db.commit()
    db.close()
    assert {row[3] for row in inputs.sqlite_tables(batch.template_db)[1]} == {"pending"}


def _finished_tables(batch):
    annotations, documents = [], []
    for d in batch.documents:
        aligned = align_annotations(d["old"].encode(), d["new"].encode(), d["annotations"])
        annotations += [(d["id"], b, e, label) for b, e, label in aligned]
        documents.append((d["id"], len(d["new"]), len(aligned), "aligned"))
    return annotations, documents


def test_the_tables_a_correct_job_leaves_have_no_problem(cache):
    batch = inputs.ensure(3, 80, 2)
    assert inputs.tables_problem(batch, *_finished_tables(batch)) is None


def test_annotations_that_differ_from_the_oracles_are_named_by_their_digest(cache):
    batch = inputs.ensure(3, 80, 2)
    annotations, documents = _finished_tables(batch)
    problem = inputs.tables_problem(batch, annotations[1:], documents)
    assert problem.startswith("database digest ") and problem.endswith(f", expected {batch.expected_checksum}")


def test_a_job_that_skips_updating_the_documents_fails_as_surely(cache):
    batch = inputs.ensure(3, 80, 2)
    annotations, documents = _finished_tables(batch)
    documents[2] = (*documents[2][:3], "pending")
    assert "documents row 2 is " in inputs.tables_problem(batch, annotations, documents)
    assert "documents row 1 is None" in inputs.tables_problem(batch, annotations, [documents[0], documents[2]])


def test_an_input_that_cannot_be_written_is_an_input_error_that_leaves_nothing(cache, monkeypatch):
    def full_disk(tmp, documents):
        (tmp / "docs").mkdir(parents=True)
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(inputs, "_write", full_disk)
    with pytest.raises(inputs.InputError, match="cannot write the batch-job input"):
        inputs.ensure(2, 40, 1)
    assert list(cache.iterdir()) == []


def test_the_template_holds_the_starting_rows_in_its_pristine_tables(cache):
    batch = inputs.ensure(3, 80, 2)
    assert inputs.pristine_problem(batch, *inputs.sqlite_pristine_tables(batch.template_db)) is None
    annotations, documents = inputs.sqlite_pristine_tables(batch.template_db)
    assert sorted(documents) == sorted(inputs.sqlite_tables(batch.template_db)[1])
    assert sorted(annotations) == sorted(inputs.sqlite_tables(batch.template_db)[0])


def test_pristine_rows_rewritten_or_dropped_are_named(cache):
    batch = inputs.ensure(3, 80, 2)
    annotations, documents = inputs.starting_rows(batch.documents)
    aligned = [(*row[:3], "aligned") for row in documents]
    assert inputs.pristine_problem(batch, annotations, aligned).startswith("pristine_documents changed")
    assert inputs.pristine_problem(batch, annotations[1:], documents).startswith("pristine_annotations changed")
