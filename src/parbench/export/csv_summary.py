"""CSV of the summary: one row per measured case, hyperfine's columns first (seconds), then
parbench's (the case, its CI, memory of the tree, verification)."""
from __future__ import annotations

import csv
import io

from parbench.escaping import csv_cell
from parbench.export.base import Exporter, Report
from parbench.export.summary_row import summary

COLUMNS = ["command", "mean", "stddev", "median", "user", "system", "min", "max",
           "run", "key", "workload", "runtime", "model", "family", "workers", "params", "status",
           "median_ci_low", "median_ci_high", "n", "tree_peak_rss_bytes", "largest_process_rss_bytes",
           "verified", "repetitions"]


def render(reports: list[Report]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    row = lambda cells: writer.writerow([csv_cell(c) for c in cells])     # every cell through the one escape
    for report in reports:
        for result in report.record.results:
            if result.stats is None:
                continue
            case, s = result.case, summary(result)
            row([s.command, s.mean, s.stddev, s.median, s.user, s.system, s.min, s.max,
                 report.record.id, case.key, case.workload, case.runtime, case.model, case.family, case.workers or "",
                 ";".join(f"{k}={v}" for k, v in case.params.items()), result.run.status,
                 *s.median_ci, len(s.times), s.tree_peak_rss_bytes, s.largest_process_rss_bytes,
                 s.verified, s.repetitions])
    return out.getvalue()


EXPORTER = Exporter("csv", "csv", "CSV of the summary, one row per case (hyperfine's columns first)", render)
