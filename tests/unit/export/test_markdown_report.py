"""export/markdown_report.py: the summary first, then a table per workload and parameter set."""
from unit_records import two_models

from parbench.export import markdown_report
from parbench.export.base import Report


def test_every_case_is_a_row_and_the_failure_says_why():
    text = markdown_report.render([Report(two_models())])
    assert "| rt seq" in text and "| rt pool ×2" in text
    assert "it fell over" in text


def test_a_pipe_in_a_reason_does_not_break_the_table():
    record = two_models()
    record.results[2].run.reason = "a | b"
    text = markdown_report.render([Report(record)])
    assert "a \\| b" in text
