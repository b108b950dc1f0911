"""workloads/input_files.py: inputs published whole, sealed read-only with their hash, and a changed
input found (and discarded) around every process."""
import hashlib
import json
import os

import pytest

from parbench.workloads import input_files


@pytest.fixture
def cache(tmp_path, monkeypatch):
    root = tmp_path / "inputs"
    root.mkdir()
    monkeypatch.setenv("PARBENCH_CACHE", str(root))
    return root


def _published_file(cache, name="text.tsv", content=b"the input") -> str:
    tmp = cache / f"{name}.tmp"
    tmp.write_bytes(content)
    return str(input_files.publish_atomically(tmp, cache / name))


def _published_folder(cache, name="docs") -> str:
    tmp = cache / f"{name}.tmp"
    (tmp / "docs").mkdir(parents=True)
    for i in range(3):
        (tmp / "docs" / f"{i}.json").write_text(f'{{"id": {i}}}')
    return str(input_files.publish_atomically(tmp, cache / name))


def _scribble(path, content=b"changed!!") -> None:
    os.chmod(path, 0o644)
    with open(path, "wb") as f:
        f.write(content)


def test_a_published_input_takes_its_final_name_read_only_with_its_hash_beside_it(cache):
    path = _published_file(cache)
    assert not (cache / "text.tsv.tmp").exists() and not os.stat(path).st_mode & 0o222
    seal = json.loads((cache / "text.tsv.seal").read_text())
    assert seal["sha256"] == hashlib.sha256(b"text.tsv\0the input").hexdigest()


def test_a_published_folder_is_read_only_throughout(cache):
    folder = _published_folder(cache)
    assert all(not os.stat(p).st_mode & 0o222 for p in [folder, f"{folder}/docs", f"{folder}/docs/0.json"])


def test_an_untouched_input_has_not_changed(cache):
    assert input_files.changed({"input": _published_file(cache), "key": 642}) == []


def test_an_input_whose_content_changed_is_named_with_both_hashes(cache):
    path = _published_file(cache)
    before = json.loads((cache / "text.tsv.seal").read_text())["sha256"]
    _scribble(path)
    [problem] = input_files.changed({"input": path})
    now = hashlib.sha256(b"text.tsv\0changed!!").hexdigest()
    assert problem == f"text.tsv (sha256 {before[:12]}…, now {now[:12]}…)"


def test_an_input_touched_but_not_changed_is_sealed_again_and_passes(cache):
    path = _published_file(cache)
    _scribble(path, b"the input")               # the same bytes written again: its ctime moved
    assert input_files.changed({"input": path}) == []
    stamps = json.loads((cache / "text.tsv.seal").read_text())["stamps"]
    assert stamps[0][2] == os.stat(path).st_ctime_ns


def test_a_file_changed_inside_a_folder_input_marks_the_whole_folder(cache):
    folder = _published_folder(cache)
    _scribble(f"{folder}/docs/1.json")
    [problem] = input_files.changed({"docs_dir": f"{folder}/docs"})
    assert problem.startswith("docs (sha256 ")


def test_an_input_from_an_older_cache_without_a_seal_is_sealed_now(cache):
    (cache / "old.tsv").write_bytes(b"old")
    assert input_files.changed({"input": str(cache / "old.tsv")}) == []
    assert (cache / "old.tsv.seal").exists()


def test_arguments_outside_the_cache_or_not_paths_are_not_inputs(cache, tmp_path):
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("x")
    assert input_files.changed({"input": str(outside), "count": 5, "db": "sqlite:/x", "missing": str(cache / "no")}) == []
    assert not (tmp_path / "elsewhere.txt.seal").exists()


def test_discard_removes_a_changed_input_and_its_seal_and_keeps_the_others(cache):
    changed, kept, folder = _published_file(cache, "a.tsv"), _published_file(cache, "b.tsv"), _published_folder(cache)
    _scribble(changed)
    _scribble(f"{folder}/docs/0.json")
    input_files.discard_changed({"input": changed, "other": kept, "docs_dir": f"{folder}/docs"})
    assert sorted(p.name for p in cache.iterdir()) == ["b.tsv", "b.tsv.seal"]
