"""export/text_report.py: the console's report as plain text, without colour codes."""
from unit_records import two_models

from parbench.export import text_report
from parbench.export.base import Report


def test_the_text_has_every_case_and_no_escape_sequence():
    text = text_report.render([Report(two_models())])
    assert "rt seq" in text and "rt pool ×2" in text and "crash" in text
    assert "\x1b[" not in text
