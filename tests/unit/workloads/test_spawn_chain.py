"""spawn_chain/__init__.py: its variants, its answer and the proof that n units existed at once."""
import random

from parbench.workloads import LineContext, spawn_chain


def test_variants_are_distinct_start_values_below_the_limit():
    starts = spawn_chain.variants({"n": 10}, 40, random.Random(2))
    assert len(set(starts)) == 40 and all(0 <= s < spawn_chain.START_LIMIT for s in starts)


def test_the_answer_is_the_start_value_plus_n_and_the_items_are_n():
    assert spawn_chain.expected_checksum({"n": 1000}, 5) == "1005"
    assert spawn_chain.expected_checksum({"n": 1000}) == "1000" and spawn_chain.expected_items({"n": 7}) == 7
    assert spawn_chain.machine_ceiling({"n": 9}) == ("atomic hand-off", "handoff", 9)


def test_a_concurrent_model_that_counted_fewer_live_units_than_n_is_not_a_chain():
    context = LineContext({"n": 100}, 0, {}, "processes")
    assert "only 99 of the chain's 100 units" in spawn_chain.line_problem({"extra": {"live_units": 99}}, context)
    assert spawn_chain.line_problem({"extra": {"live_units": 100}}, context) is None
    assert spawn_chain.line_problem({"extra": {}}, context) is None          # a model that does not count


def test_seq_owes_no_count_of_live_units():
    context = LineContext({"n": 100}, 0, {}, "seq")
    assert spawn_chain.line_problem({"extra": {"live_units": 1}}, context) is None
