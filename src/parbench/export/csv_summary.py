"""CSV of the summary: one row per measured case, hyperfine's columns first (seconds), then
parbench's (the case, its CI, memory of the tree, verification)."""
from __future__ import annotations

import csv
import io

from parbench.escaping import csv_cell
from parbench.export.base import Exporter, Report
from parbench.export.json_format import document

COLUMNS = ["command", "mean", "stddev", "median", "user", "system", "min", "max",
           "run", "key", "workload", "runtime", "model", "family", "workers", "params", "status",
           "median_ci_low", "median_ci_high", "n", "tree_peak_rss_bytes", "largest_process_rss_bytes",
           "verified", "repetitions"]


def render(reports: list[Report]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    row = lambda cells: writer.writerow([csv_cell(c) for c in cells])     # every cell through the one escape
    for r in document(reports)["results"]:
        case = r["case"]
        row([r["command"], r["mean"], r["stddev"], r["median"], r["user"], r["system"], r["min"],
                         r["max"], r["run"], case["key"], case["workload"], case["runtime"], case["model"],
                         case["family"], case["workers"] or "",
                         ";".join(f"{k}={v}" for k, v in case["params"].items()), r["status"],
                         r["median_ci"][0], r["median_ci"][1], len(r["times"]),
                         r["memory"]["tree_peak_rss_bytes"], r["memory"]["largest_process_rss_bytes"],
                         r["verification"]["verified"], r["verification"]["repetitions"]])
    return out.getvalue()


EXPORTER = Exporter("csv", "csv", "CSV of the summary, one row per case (hyperfine's columns first)", render)
