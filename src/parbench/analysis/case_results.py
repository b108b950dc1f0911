"""Stage 3: statistics for every case, then the comparison lines between them."""
from __future__ import annotations

from parbench.analysis.compare import attach_comparisons
from parbench.analysis.stats import case_stats
from parbench.records import CaseResult, CaseRun


def analyze(runs: list[CaseRun], cores: int | None = None) -> list[CaseResult]:
    # A case a stopped run cut short keeps what its finished processes measured (marked partial
    # where it is shown): a sitting stopped at its time limit still answers for what it did.
    results = [CaseResult(run, stats=case_stats(run, cores) if run.status in ("ok", "interrupted") else None)
               for run in runs]
    attach_comparisons(results)
    return results
