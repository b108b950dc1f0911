"""analysis/results.py: each analysis kind's typed result survives the store's and the export's
plain JSON, and what is not one of them stays as it was."""
import json

import numpy as np
import pytest
import unit_records

from parbench.analysis.amdahl_shares import AmdahlRow, AmdahlShares
from parbench.analysis.crossover import find_crossover
from parbench.analysis.drift import Drift
from parbench.analysis.per_task import per_task_costs
from parbench.analysis.results import MachineCeiling, TimeSplits, plain, typed
from parbench.analysis.scaling import fit_scaling
from parbench.analysis.startup import TimeSplit


def _through_json(kind: str, result):
    return typed((kind, "subject", json.loads(json.dumps(plain(result))))).result


def _groups(median: float) -> list[np.ndarray]:
    return [np.array([median * 0.99, median, median * 1.01])] * 3


@pytest.mark.parametrize("kind, result", [
    ("scaling", fit_scaling([1, 2, 4], [1000, 550, 320], cores=4)),
    ("crossover", find_crossover([100, 1000, 10000], [_groups(s) for s in (100, 1000, 10000)],
                                 [_groups(s * r) for s, r in zip((100, 1000, 10000), (3.0, 1.5, 0.4))])),
    ("per-task", per_task_costs([10, 40, 160], [100, 400, 1600], [1e6, 4e6, 16e6], None)),
    ("amdahl-shares", AmdahlShares("toy", "rt", 0.75, 0.25, [AmdahlRow("rt pool ×2", 2, 1.6, 1.5, 0.94)])),
    ("time-split", TimeSplits([TimeSplit("rt seq", 2e6, 1e6, None, 5e5, 5e5)])),
    ("drift", Drift(3, 0.2, 0.01, 0.0, 0.1, {"table B": 0.2})),
    ("machine-ceiling", MachineCeiling("memcpy", 1234.0))])
def test_a_typed_result_comes_back_equal_through_json(kind, result):
    assert _through_json(kind, result) == result


def test_a_scaling_fits_worker_counts_come_back_as_numbers():
    again = _through_json("scaling", fit_scaling([1, 2], [1000, 520], cores=2))
    assert all(isinstance(n, int) for n in again.predictions)


def test_a_kind_without_a_type_or_a_dict_that_is_not_one_stays_as_it_was():
    assert typed(("harness-overhead", "all", {"elapsed_ns": 5})).result == {"elapsed_ns": 5}
    assert typed(("drift", "sitting", {"readings": "many"})).result == {"readings": "many"}


def test_plain_leaves_a_plain_result_alone():
    assert plain({"a": 1}) == {"a": 1}
    assert plain(unit_records.two_models().results[0].stats)["median_ns"] == 104.5
