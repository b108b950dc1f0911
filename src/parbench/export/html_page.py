"""The HTML report: one self-contained page (tables, plots, the seeds, the machine)."""
from __future__ import annotations

from parbench.export.base import Exporter, Report


def render(reports: list[Report]) -> str:
    from parbench.report import html
    return html.render([(r.record, r.analyses) for r in reports])


EXPORTER = Exporter("html", "html", "one self-contained HTML page with plots", render)
