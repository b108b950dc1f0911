"""workloads/oracle_cache.py: an oracle's answer computed once per parameter set, kept on disk."""
import pytest

from parbench.workloads import oracle_cache


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("PARBENCH_CACHE", str(tmp_path / "inputs"))
    oracle_cache._memory.cache_clear()
    yield tmp_path / "oracle"
    oracle_cache._memory.cache_clear()


def _counting(answer: str):
    calls = []
    return calls, lambda: calls.append(1) or answer


def test_an_answer_is_computed_once_and_then_read_back(cache):
    calls, compute = _counting("abc123")
    assert oracle_cache.cached("toy", {"n": 1}, compute) == "abc123"
    assert oracle_cache.cached("toy", {"n": 1}, compute) == "abc123" and len(calls) == 1


def test_the_answer_is_kept_on_disk_beside_the_inputs_so_a_new_process_reads_it(cache):
    oracle_cache.cached("toy", {"n": 1}, lambda: "abc123")
    [path] = cache.iterdir()
    assert path.name.startswith("toy-") and path.read_text() == "abc123\n"
    oracle_cache._memory.cache_clear()                   # as a fresh process
    calls, compute = _counting("other")
    assert oracle_cache.cached("toy", {"n": 1}, compute) == "abc123" and not calls


def test_other_params_or_another_workload_are_other_answers(cache):
    oracle_cache.cached("toy", {"n": 1}, lambda: "one")
    assert oracle_cache.cached("toy", {"n": 2}, lambda: "two") == "two"
    assert oracle_cache.cached("other", {"n": 1}, lambda: "three") == "three"
    assert len(list(cache.iterdir())) == 3


def test_the_order_of_the_params_does_not_matter(cache):
    oracle_cache.cached("toy", {"a": 1, "b": 2}, lambda: "ab")
    calls, compute = _counting("ba")
    assert oracle_cache.cached("toy", {"b": 2, "a": 1}, compute) == "ab" and not calls


def test_a_cache_that_cannot_be_written_only_costs_the_recomputation(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    monkeypatch.setenv("PARBENCH_CACHE", str(blocker / "inputs"))  # its parent is a file: no folder can be made
    oracle_cache._memory.cache_clear()
    calls, compute = _counting("answer")
    assert oracle_cache.cached("toy", {"n": 1}, compute) == "answer"
    assert oracle_cache.cached("toy", {"n": 1}, compute) == "answer" and len(calls) == 2
    oracle_cache._memory.cache_clear()
