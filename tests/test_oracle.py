"""The oracle against every test vector in the workload specs (workloads/*.md)."""

import numpy as np

from parbench import oracle


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


def test_keygen_seeded_vector():
    assert oracle.keygen_checksum(3, 10, "seeded", 1) == "d3605c1b2c10e632"


def test_keygen_strong_checksum_is_count_and_chars():
    assert oracle.keygen_checksum(1000, 1000, "strong") == "1000:1600000"


def test_sdes_subkeys_of_key_642():
    assert oracle.sdes_subkeys(0b1010000010) == (0b10100100, 0b01000011)


def test_sdes_block_vectors():
    vectors = [(0b0000000000, 0b10101010, 0b00010001), (0b1110001110, 0b10101010, 0b11001010),
               (0b1110001110, 0b01010101, 0b01110000), (0b1111111111, 0b10101010, 0b00000100),
               (0b1010000010, 0b10010111, 0b00111000), (0b1010000010, 0b00000011, 0b11010000)]
    for key, plain, cipher in vectors:
        assert oracle.sdes_encrypt_byte(key, plain) == cipher


def test_sdes_table_of_key_642():
    assert oracle.sdes_table(642).hex().startswith("ce81add08bc4ec95747b43b631dec213")
    assert oracle.sdes_table(642).hex().endswith("71e1bf2a")
    assert sorted(oracle.sdes_table(642)) == list(range(256))   # a block cipher is a permutation


def test_sdes_quick_brown_fox():
    text = b"The quick brown fox jumps over the lazy dog\n"
    assert oracle.sdes_ecb_checksum(text, 642) == "914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf"


def test_coroutine_swarm_vector():
    assert oracle.coroutine_swarm_checksum(3, 10) == "1161d008ce58dc37"


def _lcs_map_by_definition(old: bytes, new: bytes) -> list[int]:
    n, m = len(old), len(new)
    dp = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            dp[i][j] = dp[i + 1][j + 1] + 1 if old[i] == new[j] else max(dp[i + 1][j], dp[i][j + 1])
    matched, i, j = {}, 0, 0
    while i < n and j < m:
        if old[i] == new[j]:
            matched[i] = j
            i, j = i + 1, j + 1
        elif dp[i + 1][j] >= dp[i][j + 1]:
            i += 1
        else:
            j += 1
    out = [0] * (n + 1)
    out[n] = m
    for i in range(n - 1, -1, -1):
        out[i] = matched.get(i, out[i + 1])
    return out


def test_lcs_offset_map_follows_the_spec_on_random_texts():
    import random
    rng = random.Random(5)
    for _ in range(30):
        old = bytes(rng.choice(b"ab c") for _ in range(rng.randint(0, 40)))
        new = bytes(rng.choice(b"ab c") for _ in range(rng.randint(0, 40)))
        assert oracle.lcs_offset_map(old, new) == _lcs_map_by_definition(old, new)


def test_annotations_dropped_when_they_collapse():
    old, new = b"abc def ghi", b"abc ghi"
    aligned = oracle.align_annotations(old, new, [(4, 7, "X"), (0, 3, "Y"), (8, 11, "Z")])
    assert (0, 3, "Y") in aligned and (4, 7, "Z") in aligned
    assert all(label != "X" for _, _, label in aligned)


def test_vectorised_base32_matches_the_standard_library_for_every_length():
    rng = np.random.default_rng(3)
    for n in range(0, 23):
        rows = rng.integers(0, 256, (5, n), dtype=np.uint8)
        assert [bytes(r) for r in oracle.base32_lower_rows(rows)] == [oracle.base32_lower(bytes(r)) for r in rows]


def test_keygen_seeded_checksum_equals_the_plain_definition():
    plain = oracle.order_free_digest(oracle.base32_lower(oracle.splitmix64_bytes(9, i, 33)) for i in range(50))
    assert oracle.keygen_checksum(50, 33, "seeded", 9) == plain


def test_streamed_swarm_checksum_equals_the_plain_definition_across_digit_counts():
    plain = oracle.order_free_digest(f"{t}:{s}:{oracle.fizzbuzz(s)}".encode() for t in range(1234) for s in range(16))
    assert oracle.coroutine_swarm_checksum(1234, 16) == plain

