"""sdes_ecb/inputs.py: the cached text in the shape of IMDb's title.basics.tsv, of exactly the size
asked, the same bytes for every runtime, and the seed article's four lines."""
import os

import pytest

from parbench.workloads.sdes_ecb import inputs


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PARBENCH_CACHE", str(tmp_path / "inputs"))
    return tmp_path / "inputs"


def test_the_input_has_exactly_the_size_asked_and_opens_with_the_tsv_header(cache):
    path = inputs.ensure(5000)
    text = path.read_bytes()
    assert len(text) == 5000 and text.startswith(inputs.HEADER.encode())


def test_every_full_line_has_the_nine_columns_of_title_basics(cache):
    lines = inputs.ensure(20_000).read_text().split("\n")[1:-1]
    assert lines and all(len(line.split("\t")) == 9 and line.startswith("tt") for line in lines)


def test_an_input_smaller_than_the_header_is_the_headers_first_bytes(cache):
    assert inputs.ensure(10).read_bytes() == inputs.HEADER.encode()[:10]


def test_the_same_seed_makes_the_same_bytes_and_another_seed_others(cache):
    first = inputs.ensure(3000).read_bytes()
    assert inputs.ensure(3000, seed=2).read_bytes() != first
    os.chmod(cache / "sdes-title-basics-s1-3000.tsv", 0o644)
    (cache / "sdes-title-basics-s1-3000.tsv").unlink()
    assert inputs.ensure(3000).read_bytes() == first


def test_a_cached_input_is_sealed_read_only_and_reused(cache):
    path = inputs.ensure(1000)
    inode = path.stat().st_ino
    assert not path.stat().st_mode & 0o222 and path.with_name(path.name + ".seal").exists()
    assert inputs.ensure(1000).stat().st_ino == inode


def test_a_cached_input_of_another_size_is_made_anew(cache):
    path = inputs.ensure(1000)
    os.chmod(path, 0o644)
    path.write_bytes(b"short")
    assert inputs.ensure(1000).stat().st_size == 1000


def test_an_input_that_cannot_be_written_is_an_input_error_that_leaves_nothing(cache, monkeypatch):
    def full_disk(tmp, size, seed):
        tmp.write_bytes(b"half")
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(inputs, "_write", full_disk)
    with pytest.raises(inputs.InputError, match="cannot write the 1,000-byte sdes-ecb input .*No space left"):
        inputs.ensure(1000)
    assert list(cache.iterdir()) == []


def test_the_seed_articles_text_is_its_four_lines_byte_for_byte(cache):
    path = inputs.ensure_seed_article_text()
    assert path.read_bytes() == inputs.SEED_ARTICLE_SMALL_TEXT and len(path.read_bytes().splitlines()) == 4
    assert inputs.ensure_seed_article_text() == path
