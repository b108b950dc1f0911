"""export/csv_samples.py: every timed repetition of every process, beside its process."""
import csv
import io

import pytest

from unit_records import two_models

from parbench.export import csv_samples
from parbench.export.base import Report


def test_one_row_per_repetition_with_its_processs_outcome():
    record = two_models()
    rows = list(csv.DictReader(io.StringIO(csv_samples.render([Report(record)]))))
    assert len(rows) == sum(len(r.run.repetitions) for r in record.results) == 12
    assert {r["process_outcome"] for r in rows} == {"ok"}
    assert float(rows[0]["seconds"]) == pytest.approx(100e-9) and rows[0]["verified"] == "1"
