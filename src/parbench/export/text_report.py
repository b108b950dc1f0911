"""The console report as plain text (what `parbench show` prints, without colours)."""
from __future__ import annotations

import io


from parbench.escaping import CONSOLE_OPTIONS, SafeConsole
from parbench.export.base import Exporter, Report
from parbench.report import console as console_report


def render(reports: list[Report]) -> str:
    buffer = io.StringIO()
    out = SafeConsole(file=buffer, width=200, color_system=None, highlight=False, **CONSOLE_OPTIONS)
    for r in reports:
        console_report.print_run(r.record, out, r.analyses)
    return buffer.getvalue()


EXPORTER = Exporter("text", "txt", "the console report as plain text", render)
