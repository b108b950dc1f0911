"""sdes_ecb/oracle.py: sdes-ecb's oracle against every test vector of docs/workloads/sdes-ecb.md."""

from parbench.workloads.sdes_ecb import oracle


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
