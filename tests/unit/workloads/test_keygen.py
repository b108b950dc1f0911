"""keygen/__init__.py: its params, its variants, and the proofs a line and a process owe."""
import base64
import os
import random

import pytest

from parbench.workloads import LineContext, keygen
from parbench.workloads.keygen.oracle import keygen_key
from parbench.workloads.params import ParamError

SEEDED = {"count": 100, "bytes": 10, "source": "seeded"}
STRONG = {"count": 100, "bytes": 10, "source": "strong"}


def _line(probes, checksum="0123456789abcdef"):
    return {"checksum": checksum, "extra": {"probes": probes}}


def test_variants_are_distinct_seeds_that_every_runtimes_integers_hold():
    seeds = keygen.variants(SEEDED, 50, random.Random(1))
    assert len(set(seeds)) == 50 and all(0 <= s < 2 ** 53 for s in seeds)


def test_only_the_seeded_source_has_a_checksum_to_expect_and_only_the_strong_one_unique_answers():
    assert keygen.expected_checksum(STRONG) is None
    assert keygen.unique_answers(STRONG) and not keygen.unique_answers(SEEDED)


def test_a_process_gets_as_many_probe_positions_as_it_has_keys_up_to_three():
    assert len(keygen.process_extras({"count": 2}, random.Random(1))["probes"].split(",")) == 2
    positions = keygen.process_extras({"count": 10 ** 6}, random.Random(1))["probes"].split(",")
    assert len(positions) == 3 and all(0 <= int(p) < 10 ** 6 for p in positions)


def test_seeded_probes_must_be_the_keys_of_the_repetitions_own_seed():
    context = LineContext(SEEDED, 7, {"probes": "0,5"}, "threads")
    right = [keygen_key(7, 0, 10), keygen_key(7, 5, 10)]
    assert keygen.line_problem(_line(right), context) is None
    wrong = [keygen_key(8, 0, 10), keygen_key(7, 5, 10)]
    assert keygen.line_problem(_line(wrong), context) == "the key at position 0 is not the seeded key 7 gives there"


def test_strong_probes_must_be_base32_keys_of_the_right_length():
    context = LineContext(STRONG, None, {"probes": "3"}, "threads")
    assert keygen.line_problem(_line(["abcdefgh234567ab"]), context) is None
    assert "is not a Base32 key of 16 characters" in keygen.line_problem(_line(["ABCDEFGH234567AB"]), context)
    assert "does not hold the 1 keys asked for at [3]" in keygen.line_problem(_line([]), context)


def test_a_strong_checksum_must_be_a_sixteen_hex_digit_digest():
    context = LineContext(STRONG, None, {"probes": ""}, "seq")
    assert "is not a 16-hex-digit digest" in keygen.line_problem(_line([], checksum="42"), context)


def test_strong_repetitions_that_repeat_a_digest_or_their_probes_reused_a_result():
    context = LineContext(STRONG, None, {}, "threads")
    assert keygen.process_problem([_line(["a"], "1" * 16), _line(["b"], "2" * 16)], context) is None
    fresh = [base64.b32encode(os.urandom(20)).decode().lower() for _ in range(6)]
    assert keygen.process_problem([_line(fresh[:3], "1" * 16), _line(fresh[3:], "2" * 16)], context) is None


def test_strong_keys_made_by_a_counter_fail_the_test_of_randomness():
    context = LineContext(STRONG, None, {}, "seq")
    counted = [base64.b32encode(((1 << 60) + i).to_bytes(20, "big")).decode().lower() for i in range(6)]
    assert "test of randomness" in keygen.process_problem([_line(counted[:3], "1" * 16), _line(counted[3:], "2" * 16)],
                                                          context)
    assert "same digest" in keygen.process_problem([_line(["a"], "1" * 16), _line(["b"], "1" * 16)], context)
    assert "same strong keys" in keygen.process_problem([_line(["a"], "1" * 16), _line(["a"], "2" * 16)], context)
    assert keygen.process_problem([_line(["a"], "1" * 16)] * 2, LineContext(SEEDED, 1, {}, "seq")) is None


@pytest.mark.parametrize("name, value", [("count", 0), ("bytes", 2 ** 20 + 1), ("source", "weak"), ("seed", -1)])
def test_a_param_out_of_its_range_is_refused(name, value):
    with pytest.raises(ParamError):
        keygen.PARAMS[name].check(name, value)
