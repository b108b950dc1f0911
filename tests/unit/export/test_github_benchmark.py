"""export/github_benchmark.py: customSmallerIsBetter entries, the median in ms."""
import json

from unit_records import two_models

from parbench.export import github_benchmark
from parbench.export.base import Report


def test_one_entry_per_measured_case_with_its_median_in_milliseconds():
    entries = json.loads(github_benchmark.render([Report(two_models())]))
    assert [e["name"] for e in entries] == ["toy/rt/seq[n=10]", "toy/rt/pool[n=10,workers=2]"]
    assert entries[0]["unit"] == "ms" and entries[0]["value"] == round(104.5e-6, 6)
    assert "95% CI" in entries[0]["range"]
