"""coroutine-swarm (seed 004): many coroutines, each forming `steps` FizzBuzz lines."""
from parbench import oracle
from parbench.oracle_cache import cached
from parbench.workloads.params import Integer

PARAMS = {"tasks": Integer(0, 10 ** 8, "a task count"), "steps": Integer(0, 10 ** 6, "a step count"),
          "sleep_ms": Integer(0, 3_600_000, "milliseconds")}
SWEPT_PARAM = "tasks"
ORDER = 5


def expected_checksum(params) -> str:
    tasks, steps = int(params["tasks"]), int(params["steps"])
    return cached("coroutine-swarm", {"tasks": tasks, "steps": steps},
                  lambda: oracle.coroutine_swarm_checksum(tasks, steps))


def expected_items(params) -> int:
    return int(params["tasks"])
