"""keygen/oracle.py: keygen's oracle against docs/workloads/keygen.md and protocol 2's vectors."""

from parbench.workloads import digest as oracle
from parbench.workloads.keygen import oracle as keygen_oracle


def test_keygen_seeded_vector():
    assert keygen_oracle.keygen_checksum(3, 10, 1) == "d3605c1b2c10e632"


def test_keygen_seeded_checksum_equals_the_plain_definition():
    plain = oracle.order_free_digest(oracle.base32_lower(oracle.splitmix64_bytes(9, i, 33)) for i in range(50))
    assert keygen_oracle.keygen_checksum(50, 33, 9) == plain


def test_probe_vectors_of_protocol_2():
    assert [keygen_oracle.keygen_key(1, i, 10) for i in range(3)] == [
        "yfoafcpmfufjcz7m", "m7wi4znbrxv34xsv", "lzktf67oukj7qc6j"]


def test_a_keys_encoded_length_is_base32_with_padding_to_eight_characters():
    assert [keygen_oracle.encoded_length(n) for n in (1, 5, 6, 10, 16)] == [8, 8, 16, 16, 32]
    assert len(keygen_oracle.keygen_key(7, 0, 16)) == keygen_oracle.encoded_length(16)

