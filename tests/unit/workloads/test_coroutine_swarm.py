"""coroutine_swarm/__init__.py: its salts, its cached answer and the proof that the tasks yielded."""
import random

from parbench.workloads import LineContext, coroutine_swarm, oracle_cache
from parbench.workloads.coroutine_swarm.interleaving import probe_tasks
from parbench.workloads.coroutine_swarm.oracle import coroutine_swarm_checksum

SWARM = {"tasks": 10, "steps": 5, "sleep_ms": 0}


def test_variants_are_distinct_salts_below_the_limit():
    salts = coroutine_swarm.variants(SWARM, 30, random.Random(3))
    assert len(set(salts)) == 30 and all(0 <= s < coroutine_swarm.SALT_LIMIT for s in salts)


def test_the_expected_answer_is_the_oracles_for_the_salt(tmp_path, monkeypatch):
    monkeypatch.setenv("PARBENCH_CACHE", str(tmp_path / "inputs"))
    oracle_cache._memory.cache_clear()
    assert coroutine_swarm.expected_checksum(SWARM, 1000) == coroutine_swarm_checksum(10, 5, 1000)
    assert coroutine_swarm.expected_checksum(SWARM) == coroutine_swarm_checksum(10, 5, 0)
    assert coroutine_swarm.expected_items(SWARM) == 10


def taking_turns(tasks: int, steps: int, switches: int) -> dict:
    """A line whose tasks took turns (task t's step s drew ticket s·tasks + t), with `switches`."""
    probes = [[t, t, (steps - 1) * tasks + t] for t in sorted(probe_tasks(tasks, 0))]
    return {"extra": {"switches": switches, "tickets": tasks * steps, "ticket_probes": probes}}


def test_a_swarm_that_switched_only_tasks_minus_one_times_never_yielded():
    context = LineContext(SWARM, 0, {}, "green")
    assert "switched only 9 times" in coroutine_swarm.line_problem(taking_turns(10, 5, 9), context)
    assert coroutine_swarm.line_problem(taking_turns(10, 5, 10), context) is None


def test_switches_alone_no_longer_prove_a_swarm():
    assert "interleaving unproven" in coroutine_swarm.line_problem(
        {"extra": {"switches": 50}}, LineContext(SWARM, 0, {}, "green"))


def test_a_swarm_model_must_count_its_switches_and_seq_need_not():
    assert "extra.switches is missing" in coroutine_swarm.line_problem(
        {"extra": {"switches": True}}, LineContext(SWARM, 0, {}, "green"))
    assert coroutine_swarm.line_problem({}, LineContext(SWARM, 0, {}, "seq")) is None


def test_one_task_or_one_step_has_nothing_to_switch_between():
    for params in ({"tasks": 1, "steps": 5}, {"tasks": 10, "steps": 1}):
        line = taking_turns(params["tasks"], params["steps"], 0)
        assert coroutine_swarm.line_problem(line, LineContext(params, 0, {}, "green")) is None
