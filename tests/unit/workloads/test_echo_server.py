"""echo_server/__init__.py: what the server is told, what a repetition owes, its proofs."""
import random

from parbench.workloads import LineContext, load_all
from parbench.workloads.echo_server import (expected_checksum, expected_items, line_problem, machine_ceiling,
                                            process_arguments, variants)
from parbench.workloads.echo_server.oracle import echo_checksum

PARAMS = {"connections": 100, "requests": 10, "len": 64, "wait_us": 1000}


def test_the_server_is_told_only_its_wait(tmp_path):
    assert process_arguments(PARAMS, tmp_path) == ({"wait_us": 1000}, None)


def test_a_repetition_owes_every_reply_of_every_connection():
    assert expected_items(PARAMS) == 1000


def test_each_repetition_gets_its_own_seed_and_the_digest_of_that_seed():
    seeds = variants(PARAMS, 5, random.SystemRandom())
    assert len(set(seeds)) == 5 and all(0 <= s < 2 ** 63 for s in seeds)
    assert expected_checksum(PARAMS, seeds[0]) == echo_checksum(100, 10, 64, seeds[0])
    assert expected_checksum(PARAMS, None) is None


def test_the_ceiling_is_the_same_load_against_the_reference_server():
    assert machine_ceiling(PARAMS)[1:] == ("echo", (100, 10, 64, 1000))


def _context():
    return LineContext(PARAMS, 1, {}, "threads")


def test_a_server_that_counts_every_reply_it_wrote_passes():
    line = {"extra": {"replies": 1002, "loadgen_replies": 1000, "probe_replies": 2}}
    assert line_problem(line, _context()) is None


def test_a_server_whose_count_is_not_the_replies_received_fails():
    line = {"extra": {"replies": 1000, "loadgen_replies": 1000, "probe_replies": 2}}
    assert "counts 1,000 replies written" in line_problem(line, _context())


def test_a_server_line_without_its_count_fails():
    assert "extra.replies" in line_problem({"extra": {"loadgen_replies": 10}}, _context())


def test_the_spec_loads_with_the_specs_three_scales():
    workload = load_all()["echo-server"]
    assert workload.driver == "load-generator" and workload.swept_param == "connections"
    assert workload.sweeps == {"per-task": "tasks"}         # bytes per connection, the largest served
    assert workload.scales["smoke"] == {"connections": 100, "requests": 10, "len": 64, "wait_us": 0}
    assert workload.scales["quick"]["wait_us"] == [0, 1000]
    assert workload.scales["seed"]["connections"] == [1000, 10000, 30000]


def test_the_quick_suite_runs_it_only_when_named():
    assert load_all()["echo-server"].unnamed_scales == ("smoke", "seed")
