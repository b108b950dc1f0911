"""CSV of every raw sample: one row per timed repetition of every process of every case,
beside its process's kernel measurements, so any statistic can be re-derived elsewhere."""
from __future__ import annotations

import csv
import io

from parbench.escaping import csv_cell
from parbench.export.base import Exporter, Report

COLUMNS = ["run", "key", "workload", "runtime", "model", "workers", "process", "rep", "seconds", "items",
           "checksum", "verified", "process_outcome", "process_wall_seconds", "process_user_seconds",
           "process_sys_seconds", "process_max_rss_bytes", "process_tree_peak_rss_bytes", "process_order"]


def render(reports: list[Report]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    row = lambda cells: writer.writerow([csv_cell(c) for c in cells])     # every cell through the one escape
    for report in reports:
        for result in report.record.results:
            case, processes = result.case, {p.index: p for p in result.run.processes}
            for r in result.run.repetitions:
                p = processes.get(r.process)
                row([report.record.id, case.key, case.workload, case.runtime, case.model,
                                 case.workers or "", r.process, r.rep, r.ns * 1e-9, r.items, r.checksum,
                                 int(r.verified), p.outcome if p else "", p.wall_ns * 1e-9 if p else "",
                                 p.user_ns * 1e-9 if p else "", p.sys_ns * 1e-9 if p else "",
                                 p.max_rss_kb * 1024 if p else "", p.peak_kb * 1024 if p else "",
                                 p.sequence if p and p.sequence is not None else ""])
    return out.getvalue()


EXPORTER = Exporter("csv-samples", "csv", "CSV of every raw sample with its process's measurements", render)
