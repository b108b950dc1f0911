"""sdes-ecb's reference answer, straight from the spec's permutations (docs/workloads/sdes-ecb.md)."""
from __future__ import annotations

import hashlib

P10 = (3, 5, 2, 7, 4, 10, 1, 9, 8, 6)
P8 = (6, 3, 7, 4, 8, 5, 10, 9)
IP = (2, 6, 3, 1, 4, 8, 5, 7)
IP_INV = (4, 1, 3, 5, 7, 2, 8, 6)
EP = (4, 1, 2, 3, 2, 3, 4, 1)
P4 = (2, 4, 3, 1)
S0 = ((1, 0, 3, 2), (3, 2, 1, 0), (0, 2, 1, 3), (3, 1, 3, 2))
S1 = ((0, 1, 2, 3), (2, 0, 1, 3), (3, 0, 1, 0), (2, 1, 0, 3))


def _permute(value: int, width: int, table: tuple[int, ...]) -> int:
    """Bit k of the output is bit table[k] of the input; bit 1 is the most significant."""
    out = 0
    for position in table:
        out = (out << 1) | ((value >> (width - position)) & 1)
    return out


def _rotate5(half: int, by: int) -> int:
    return ((half << by) | (half >> (5 - by))) & 0b11111


def sdes_subkeys(key: int) -> tuple[int, int]:
    p10 = _permute(key, 10, P10)
    left, right = p10 >> 5, p10 & 0b11111
    left, right = _rotate5(left, 1), _rotate5(right, 1)
    k1 = _permute((left << 5) | right, 10, P8)
    left, right = _rotate5(left, 2), _rotate5(right, 2)
    k2 = _permute((left << 5) | right, 10, P8)
    return k1, k2


def _f_k(block: int, subkey: int) -> int:
    left, right = block >> 4, block & 0xF
    mixed = _permute(right, 4, EP) ^ subkey
    l4, r4 = mixed >> 4, mixed & 0xF
    s0 = S0[((l4 >> 3) & 1) << 1 | (l4 & 1)][(l4 >> 1) & 0b11]
    s1 = S1[((r4 >> 3) & 1) << 1 | (r4 & 1)][(r4 >> 1) & 0b11]
    return ((left ^ _permute((s0 << 2) | s1, 4, P4)) << 4) | right


def sdes_encrypt_byte(key: int, plain: int) -> int:
    k1, k2 = sdes_subkeys(key)
    block = _f_k(_permute(plain, 8, IP), k1)
    block = ((block & 0xF) << 4) | (block >> 4)
    return _permute(_f_k(block, k2), 8, IP_INV)


def sdes_table(key: int) -> bytes:
    return bytes(sdes_encrypt_byte(key, b) for b in range(256))


def sdes_ecb_checksum(plaintext: bytes, key: int) -> str:
    return hashlib.sha256(plaintext.translate(sdes_table(key))).hexdigest()
