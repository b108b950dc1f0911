"""keygen/randomness.py: a CSPRNG's keys pass, keys made by a counter or a pattern fail."""
import base64
import os

from parbench.workloads.keygen import randomness


def _keys(blobs):
    return [base64.b32encode(blob).decode().lower() for blob in blobs]


def test_os_random_keys_pass_both_tests():
    for _ in range(20):
        assert randomness.randomness_problem(_keys(os.urandom(20) for _ in range(12))) is None


def test_keys_counted_up_from_a_clock_fail_the_frequency_test():
    base = 1_700_000_000_000_000_000
    problem = randomness.randomness_problem(_keys((base + i).to_bytes(20, "big") for i in range(12)))
    assert "fail the frequency (monobit) test" in problem and "not keys from a CSPRNG" in problem


def test_balanced_bits_that_alternate_too_often_fail_the_runs_test():
    problem = randomness.randomness_problem(_keys(b"\x55" * 20 for _ in range(12)))
    assert "fail the runs test" in problem


def test_the_bits_are_the_decoded_keys_not_their_letters():
    assert randomness.decoded(_keys([b"\x00\xff"])) == b"\x00\xff"
    assert randomness.bits_of(b"\x80\x01") == [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1]
