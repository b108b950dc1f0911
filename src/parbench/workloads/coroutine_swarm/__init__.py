"""coroutine-swarm (seed 004): many coroutines that yield between steps.

Proofs of work: each repetition salts every task id (the digest differs per repetition); every
model but `seq` counts the switches between tasks (a swarm whose tasks ran one after the other,
tasks − 1 switches, never yielded) and hands over the tickets its probe tasks drew, which only an
interleaved order gives (interleaving.py)."""
from __future__ import annotations

from parbench.workloads.coroutine_swarm.interleaving import interleaving_problem
from parbench.workloads.coroutine_swarm.oracle import coroutine_swarm_checksum
from parbench.workloads.oracle_cache import cached
from parbench.workloads.params import Integer
from parbench.workloads.seeds import Figure, Seed

PARAMS = {"tasks": Integer(0, 10 ** 8, "a task count"), "steps": Integer(0, 10 ** 6, "a step count"),
          "sleep_ms": Integer(0, 3_600_000, "milliseconds")}
SWEPT_PARAM = "tasks"
ORDER = 5
SWEEPS = {"per-task": "tasks"}
# The ceiling takes time of its own; the checksum is a digest of one short line a task.
UNTIMED_WORK = ("ceiling",)
SALT_LIMIT = 2 ** 32

SEED = Seed("004", "coroutine-swarm", "coroutine-swarm: 100k asyncio coroutines (Python)",
            "Python 3.5, 2015", 1, (
                Figure("100k coroutines, start + finish", "python", "asyncio", "tasks", 100_000, 100_000,
                       "coroutine", 6.081e9, {"sleep_ms": 0}),
                Figure("1M switches (sleep 1 s between steps), total / switches", "python", "asyncio", "tasks",
                       100_000, 1_000_000, "switch", 51.435e9, {"sleep_ms": 1000}, items_per_unit=10),
                Figure("100k coroutines, memory (total / tasks)", "python", "asyncio", "tasks", 100_000, 100_000,
                       "coroutine", 146.86e6, {"sleep_ms": 0}, quantity="memory"),
                Figure("100k coroutines with switches, memory", "python", "asyncio", "tasks", 100_000, 100_000,
                       "coroutine", 336.30e6, {"sleep_ms": 1000}, quantity="memory"),
            ), "printing dominated the article's times; parbench folds lines into a digest",
            note="the article printed every line (printing dominated); here lines go into a digest")


def variants(params, count: int, rng) -> list[int]:
    """Distinct salts drawn from `rng` (a secret generator: protocol 3's variants are not
    predictable): each repetition's task ids differ from every other's."""
    return rng.sample(range(SALT_LIMIT), count)


def expected_checksum(params, variant: int | None = None) -> str:
    tasks, steps, salt = int(params["tasks"]), int(params["steps"]), variant or 0
    if variant is not None:     # a salt drawn for one process never recurs: nothing to keep
        return coroutine_swarm_checksum(tasks, steps, salt)
    return cached("coroutine-swarm", {"tasks": tasks, "steps": steps, "salt": salt},
                  lambda: coroutine_swarm_checksum(tasks, steps, salt))


def expected_items(params) -> int:
    return int(params["tasks"])


def line_problem(line: dict, context) -> str | None:
    if context.family == "seq":
        return None
    switches = line.get("extra", {}).get("switches")
    tasks = int(context.params["tasks"])
    if not isinstance(switches, int) or isinstance(switches, bool):
        return "extra.switches is missing: a swarm model counts the switches between its tasks (protocol 2)"
    if tasks > 1 and int(context.params["steps"]) > 1 and switches <= tasks - 1:
        return (f"its {tasks} tasks switched only {switches} times (extra.switches): they ran one after "
                "the other and never yielded to each other")
    return interleaving_problem(line["extra"], tasks, int(context.params["steps"]), context.variant or 0)
