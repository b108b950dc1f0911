"""sdes_ecb/__init__.py: its size param, its keys as variants, its footprint and its arguments."""
import random

import pytest

from parbench.workloads import oracle_cache, sdes_ecb
from parbench.workloads.params import ParamError
from parbench.workloads.sdes_ecb.oracle import sdes_ecb_checksum


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PARBENCH_CACHE", str(tmp_path / "inputs"))
    oracle_cache._memory.cache_clear()
    return tmp_path / "inputs"


def test_a_size_is_bytes_or_the_seed_articles_text():
    size = sdes_ecb.PARAMS["size"]
    assert size.check("size", "seed-article") == "seed-article" and size.check("size", 4096) == 4096
    for wrong in (0, "big", 1 << 41):
        with pytest.raises(ParamError, match="a size in bytes"):
            size.check("size", wrong)


def test_variants_are_distinct_keys_until_the_1024_there_are_then_repeat_in_order():
    keys = sdes_ecb.variants({}, 1030, random.Random(4))
    assert len(set(keys[:1024])) == 1024 and keys[1024:] == keys[:6] and all(0 <= k < 1024 for k in keys)


def test_the_footprint_counts_the_input_until_it_is_cached_and_the_oracles_two_buffers(cache):
    assert sdes_ecb.footprint({"size": "seed-article"}) == (0, 0)
    assert sdes_ecb.footprint({"size": 1000}) == (1000, 2000)
    sdes_ecb.input_path({"size": 1000})
    assert sdes_ecb.footprint({"size": 1000}) == (0, 2000)


def test_the_expected_answer_is_the_oracle_over_the_cached_input_under_the_variants_key(cache):
    params = {"size": 500, "key": 642}
    text = sdes_ecb.input_path(params).read_bytes()
    assert len(text) == 500 == sdes_ecb.expected_items(params)
    assert sdes_ecb.expected_checksum(params) == sdes_ecb_checksum(text, 642)
    assert sdes_ecb.expected_checksum(params, 7) == sdes_ecb_checksum(text, 7)


def test_a_process_gets_the_inputs_path_instead_of_its_size_and_no_recheck(cache):
    arguments, recheck = sdes_ecb.process_arguments({"size": 64, "key": 1, "cipher": "table"}, cache)
    assert arguments == {"input": str(cache / "sdes-title-basics-s1-64.tsv"), "key": 1, "cipher": "table"}
    assert recheck is None
    assert sdes_ecb.machine_ceiling({"size": 64}) == ("memcpy", "copy", 64)
