"""batch-job's reference answer: the spec's LCS alignment of every document and the rows' digest."""
from __future__ import annotations

from typing import Iterable

import numpy as np

from parbench.workloads.digest import order_free_digest


def lcs_offset_map(old: bytes, new: bytes) -> list[int]:
    """M from workloads/batch-job.md: where each offset of `old` lands in `new`.

    The suffix table is filled one anti-diagonal at a time (cells with i + j = d depend only
    on diagonals d + 1 and d + 2), so numpy does each diagonal in one step; the walk and the
    tie-breaking are exactly the spec's.
    """
    n, m = len(old), len(new)
    a = np.frombuffer(old, dtype=np.uint8)
    b = np.frombuffer(new, dtype=np.uint8)
    dp = np.zeros((n + 2, m + 2), dtype=np.int32)
    for d in range(n + m - 2, -1, -1):
        i = np.arange(max(0, d - m + 1), min(n - 1, d) + 1)
        j = d - i
        equal = a[i] == b[j]
        dp[i, j] = np.where(equal, dp[i + 1, j + 1] + 1, np.maximum(dp[i + 1, j], dp[i, j + 1]))
    matched_to = [-1] * n
    i = j = 0
    while i < n and j < m:
        if old[i] == new[j]:
            matched_to[i] = j
            i += 1
            j += 1
        elif dp[i + 1, j] >= dp[i, j + 1]:
            i += 1
        else:
            j += 1
    offset_map = [0] * (n + 1)
    offset_map[n] = m
    for i in range(n - 1, -1, -1):
        offset_map[i] = matched_to[i] if matched_to[i] >= 0 else offset_map[i + 1]
    return offset_map


def align_annotations(old: bytes, new: bytes, spans: list[tuple[int, int, str]]):
    offset_map = lcs_offset_map(old, new)
    aligned = []
    for begin, end, label in spans:
        b, e = offset_map[begin], offset_map[end]
        if b < e:
            aligned.append((b, e, label))
    return aligned


def annotation_rows_digest(rows: Iterable[tuple[int, int, int, str]]) -> str:
    return order_free_digest(f"{d}:{b}:{e}:{label}".encode() for d, b, e, label in rows)
