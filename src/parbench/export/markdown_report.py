"""The Markdown report (summary first, then every table), for a README, an issue or a pull request."""
from __future__ import annotations

from parbench.export.base import Exporter, Report
from parbench.report import markdown


def render(reports: list[Report]) -> str:
    return "\n\n".join(markdown.render(r.record, r.analyses) for r in reports) + "\n"


EXPORTER = Exporter("markdown", "md", "the Markdown report: the summary first, then every table", render)
