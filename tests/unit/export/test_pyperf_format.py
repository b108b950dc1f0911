"""export/pyperf_format.py: one pyperf benchmark per measured case, one pyperf run per process."""
import json

import pytest

from unit_records import two_models

from parbench.export import pyperf_format
from parbench.export.base import Report


def test_each_process_is_a_pyperf_run_of_its_verified_samples_in_seconds():
    document = json.loads(pyperf_format.render([Report(two_models())]))
    assert document["version"] == "1.0"
    seq = next(b for b in document["benchmarks"] if b["metadata"]["name"] == "toy/rt/seq[n=10]")
    assert [run["values"] for run in seq["runs"]] == [pytest.approx([100e-9, 110e-9, 105e-9]),
                                                    pytest.approx([102e-9, 108e-9, 104e-9])]
    assert len(document["benchmarks"]) == 2          # the crash has no samples to compare
