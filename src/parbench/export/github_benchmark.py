"""github-action-benchmark's `customSmallerIsBetter` format: one entry per case, its median in
milliseconds, the 95% CI as the range, so a CI job can chart and gate parbench's figures."""
from __future__ import annotations


from parbench.escaping import json_text
from parbench.export.base import Exporter, Report


def render(reports: list[Report]) -> str:
    entries = []
    for report in reports:
        for result in report.record.results:
            s = result.stats
            if s is None:
                continue
            low, high = s.median_ci_ns
            entries.append({"name": result.case.key, "unit": "ms", "value": round(s.median_ns / 1e6, 6),
                            "range": f"{low / 1e6:.6g} – {high / 1e6:.6g} (95% CI)",
                            "extra": f"run {report.record.id}; {s.n} samples; peak RSS (tree) "
                                     f"{(s.peak_rss_kb or 0) * 1024} B"})
    return json_text(entries, indent=1) + "\n"


EXPORTER = Exporter("github-benchmark", "json",
                    "github-action-benchmark's customSmallerIsBetter JSON (median in ms, CI as range)", render)
