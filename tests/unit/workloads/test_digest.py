"""The digests every workload's oracle shares, against the vectors of docs/workloads/README.md."""

import numpy as np

from parbench.workloads import digest as oracle


def test_fnv1a64_of_empty_and_a():
    assert f"{oracle.fnv1a64(b''):016x}" == "cbf29ce484222325"
    assert f"{oracle.fnv1a64(b'a'):016x}" == "af63dc4c8601ec8c"


def test_order_free_digest_matches_the_plain_sum_and_ignores_order():
    strings = [b"a", b"bc", b"", b"hello world", b"a"]
    plain = sum(oracle.fnv1a64(s) for s in strings) % 2**64
    assert oracle.order_free_digest(strings) == f"{plain:016x}"
    assert oracle.order_free_digest(reversed(strings)) == oracle.order_free_digest(strings)


def test_splitmix64_bytes_vector():
    assert oracle.splitmix64_bytes(1, 0, 16).hex() == "c15c0289ec2d0a9167ec8e65a18debbe"


def test_base32_lower_vectors():
    vectors = {b"": b"", b"f": b"my======", b"fo": b"mzxq====", b"foo": b"mzxw6===",
               b"foob": b"mzxw6yq=", b"fooba": b"mzxw6ytb", b"foobar": b"mzxw6ytboi======"}
    for plain, encoded in vectors.items():
        assert oracle.base32_lower(plain) == encoded


def test_vectorised_base32_matches_the_standard_library_for_every_length():
    rng = np.random.default_rng(3)
    for n in range(0, 23):
        rows = rng.integers(0, 256, (5, n), dtype=np.uint8)
        assert [bytes(r) for r in oracle.base32_lower_rows(rows)] == [oracle.base32_lower(bytes(r)) for r in rows]
