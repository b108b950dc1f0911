"""Stage 3: statistics for every case, then the comparison lines between them."""
from __future__ import annotations

from parbench.compare import attach_comparisons
from parbench.records import CaseResult, CaseRun
from parbench.stats import case_stats


def analyze(runs: list[CaseRun], cores: int | None = None) -> list[CaseResult]:
    results = [CaseResult(run, stats=case_stats(run, cores) if run.status == "ok" else None)
               for run in runs]
    attach_comparisons(results)
    return results
