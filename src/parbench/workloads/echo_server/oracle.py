"""echo-server's reference answer, independent of the load generator's C: the digest of the
replies a right server gives, worked out from the repetition's seed (docs/workloads/echo-server.md).

Request k of connection c has index i = c * requests + k, header BE u32 i then BE u32 len, and
SplitMix64 bytes(seed, i, len) as its payload; its reply is the header and the payload reversed.
The digest is the order-free digest of "<c>:<k>:<fnv1a64 of the reply, 16 hex>"."""
from __future__ import annotations

import numpy as np

from parbench.workloads.digest import fnv1a64_rows, order_free_digest, splitmix64_matrix

BATCH = 200_000         # requests at a time: about 15 MB of replies at len 64


def replies(seed: int, first: int, count: int, length: int) -> np.ndarray:
    """The right replies to requests first … first + count - 1, one row each."""
    header = np.zeros((count, 8), dtype=np.uint8)
    index = np.arange(first, first + count, dtype=np.uint64)
    header[:, :4] = index.astype(">u4").view(np.uint8).reshape(count, 4)
    header[:, 4:] = np.frombuffer(length.to_bytes(4, "big"), dtype=np.uint8)
    payload = splitmix64_matrix(seed, first, count, length)[:, ::-1]
    return np.concatenate([header, payload], axis=1)


def echo_checksum(connections: int, requests: int, length: int, seed: int) -> str:
    strings = []
    total = connections * requests
    for first in range(0, total, BATCH):
        count = min(BATCH, total - first)
        hashes = fnv1a64_rows(replies(seed, first, count, length))
        for offset, h in enumerate(hashes.tolist()):
            c, k = divmod(first + offset, requests)
            strings.append(f"{c}:{k}:{h:016x}".encode())
    return order_free_digest(strings)
