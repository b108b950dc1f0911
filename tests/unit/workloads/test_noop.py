"""workloads/noop.py: a process that does no work, so start-up is measured apart."""
from parbench.workloads import noop, with_noop


def test_noop_answers_noop_with_no_items_whatever_it_is_given():
    assert noop.expected_checksum({}) == noop.expected_checksum({"n": 5}, 3) == "noop"
    assert noop.expected_items({}) == 0 and noop.PARAMS == {}


def test_noop_comes_first_in_reports_and_has_every_scale_empty():
    workload = with_noop({})["noop"]
    assert workload.order == 0 and workload.params == ()
    assert workload.scales == {"smoke": {}, "quick": {}, "seed": {}}
