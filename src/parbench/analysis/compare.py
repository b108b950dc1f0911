"""Stage 3b: Benchee-style comparison lines with a bootstrap CI of the ratio of medians."""
from __future__ import annotations

import numpy as np

from parbench.analysis.stats import _rng, bootstrap_medians, confidence_interval, grouped_samples
from parbench.records import CaseResult, Comparison


def compare(subject_groups: list[np.ndarray], reference_groups: list[np.ndarray],
            reference_key: str) -> Comparison:
    """subject / reference; significant when the 95 % CI of the ratio excludes 1."""
    rng = _rng()
    if min(float(np.min(g)) for g in reference_groups) <= 0:
        raise ValueError(f"{reference_key} has a zero time: a ratio against it means nothing")
    ratios = bootstrap_medians(subject_groups, rng=rng) / bootstrap_medians(reference_groups, rng=rng)
    low, high = confidence_interval(ratios)
    subject = float(np.median(np.concatenate(subject_groups)))
    reference = float(np.median(np.concatenate(reference_groups)))
    return Comparison(reference_key, subject / reference, (low, high), subject - reference,
                      significant=not (low <= 1.0 <= high))


def attach_comparisons(results: list[CaseResult]) -> None:
    """Each case against its runtime's `seq` model and against the fastest case, both among the
    cases of the same workload with the same params (a ratio across sizes would mean nothing)."""
    groups: dict[tuple, list[CaseResult]] = {}
    for result in results:
        if result.stats is not None:
            groups.setdefault(result.case.table, []).append(result)
    for members in groups.values():
        fastest = min(members, key=lambda r: r.stats.median_ns)
        for result in members:
            samples = grouped_samples(result.run)
            seq = next((m for m in members if m.case.runtime == result.case.runtime
                        and m.case.family == "seq" and m is not result), None)
            # exec's times have the shell's start-up subtracted, as hyperfine's, and may be 0: no ratio against 0
            if seq is not None and seq.stats.min_ns > 0:
                result.vs_seq = compare(samples, grouped_samples(seq.run), seq.case.key)
            if fastest is not result and fastest.stats.min_ns > 0:
                result.vs_fastest = compare(samples, grouped_samples(fastest.run), fastest.case.key)
