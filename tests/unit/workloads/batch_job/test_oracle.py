"""batch_job/oracle.py: the spec's LCS alignment, against its plain definition, and the rows' digest."""

import random

from parbench.workloads.batch_job import oracle


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


def test_an_annotation_keeps_its_label_and_moves_with_the_inserted_text():
    assert oracle.align_annotations(b"abc def", b"xx abc def", [(4, 7, "PLACE")]) == [(7, 10, "PLACE")]


def test_the_rows_digest_does_not_depend_on_the_rows_order_but_on_every_field():
    rows = [(0, 1, 4, "PERSON"), (1, 0, 3, "PLACE"), (1, 5, 9, "ORG")]
    assert oracle.annotation_rows_digest(rows) == oracle.annotation_rows_digest(reversed(rows))
    assert oracle.annotation_rows_digest(rows) != oracle.annotation_rows_digest(rows[:2] + [(1, 5, 9, "DATE")])
    assert oracle.annotation_rows_digest(rows) != oracle.annotation_rows_digest(rows[:2] + [(1, 5, 8, "ORG")])
