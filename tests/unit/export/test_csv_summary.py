"""export/csv_summary.py: one row per measured case, hyperfine's columns first."""
import csv
import io

import unit_records
from unit_records import two_models

from parbench.export import csv_summary
from parbench.export.base import Report


def test_one_row_per_measured_case_under_the_documented_columns():
    rows = list(csv.DictReader(io.StringIO(csv_summary.render([Report(two_models())]))))
    assert [r["model"] for r in rows] == ["seq", "pool"]
    assert list(rows[0])[:8] == ["command", "mean", "stddev", "median", "user", "system", "min", "max"]
    assert float(rows[0]["median"]) == 104.5e-9 and rows[1]["workers"] == "2" and rows[0]["n"] == "6"


def test_a_cell_that_a_spreadsheet_would_evaluate_is_kept_as_text():
    record = unit_records.record([unit_records.case_run(runtime="=cmd")])     # a name as anyone may write it
    rows = list(csv.DictReader(io.StringIO(csv_summary.render([Report(record)]))))
    assert rows[0]["command"] == "'=cmd seq" and rows[0]["runtime"] == "'=cmd"
