"""coroutine-swarm: `tasks` coroutines at once, each yielding before every FizzBuzz step it folds into the digest."""
from __future__ import annotations

import asyncio
import time

from .checksums import MASK64, digest_hex, fnv1a64
from .event_loops import UVLOOP_AVAILABLE, run_on
from .protocol import Job, Model, Outcome, Param, Workload


def fizzbuzz(i: int) -> str:
    if i % 15 == 0:
        return "FizzBuzz"
    if i % 5 == 0:
        return "Buzz"
    if i % 3 == 0:
        return "Fizz"
    return str(i)


def line_hash(task: int, step: int) -> int:
    return fnv1a64(f"{task}:{step}:{fizzbuzz(step)}".encode())


def seq_digest(tasks: int, steps: int) -> int:
    total = 0
    for task in range(tasks):
        for step in range(steps):
            total += line_hash(task, step)
    return total & MASK64


async def _swarm_task(task: int, steps: int, pause_s: float) -> int:
    total = 0
    for step in range(steps):
        await asyncio.sleep(pause_s)  # sleep(0) is asyncio's bare yield
        total += line_hash(task, step)
    return total


async def swarm(tasks: int, steps: int, sleep_ms: int, started_ns: int) -> tuple[int, int]:
    """The digest and spawn_ns: nanoseconds from `started_ns` until every task exists."""
    pause_s = sleep_ms / 1000
    running = [asyncio.create_task(_swarm_task(task, steps, pause_s)) for task in range(tasks)]
    spawn_ns = time.perf_counter_ns() - started_ns
    totals = await asyncio.gather(*running)
    return sum(totals) & MASK64, spawn_ns


def _params(job: Job) -> tuple[int, int, int]:
    return job.params["tasks"], job.params["steps"], job.params["sleep_ms"]


def run_seq(job: Job) -> Outcome:
    tasks, steps, _ = _params(job)
    total = seq_digest(tasks, steps)
    return Outcome(tasks, lambda: digest_hex(total))


async def _bare_yields(count: int) -> int:
    started = time.perf_counter_ns()
    for _ in range(count):
        await asyncio.sleep(0)
    return time.perf_counter_ns() - started


async def yield_ceiling_ns(count: int) -> int:
    """The yield ceiling: one Task, made before the clock, does `count` bare yields and forms no lines."""
    return await asyncio.create_task(_bare_yields(count))


def _yield_ceiling(job: Job, loop_name: str) -> dict:
    tasks, steps, _ = _params(job)
    return {"ceiling": "yield", "ceiling_ns": run_on(loop_name, yield_ceiling_ns(tasks * steps))}


def _run_async(job: Job, loop_name: str) -> Outcome:
    started_ns = time.perf_counter_ns()
    total, spawn_ns = run_on(loop_name, swarm(*_params(job), started_ns))
    # Only bare yields have a ceiling: a timer sleep's cost is the timer, not the switch.
    ceiling = (lambda: _yield_ceiling(job, loop_name)) if job.params["sleep_ms"] == 0 else None
    return Outcome(job.params["tasks"], lambda: digest_hex(total), {"spawn_ns": spawn_ns, "loop": loop_name},
                   ceiling=ceiling)


MODELS = {
    "seq": Model("seq", run_seq, note="the same lines in a plain loop, no yields (the article's program 1); "
                                      "sleep_ms is ignored"),
    "asyncio": Model("async", lambda job: _run_async(job, "asyncio"),
                     note="one asyncio Task per task, asyncio.sleep(0) or asyncio.sleep(ms) before each step; "
                          "default event loop"),
}
if UVLOOP_AVAILABLE:
    MODELS["uvloop"] = Model("async", lambda job: _run_async(job, "uvloop"),
                             note="the asyncio model on uvloop's event loop")

WORKLOAD = Workload(
    name="coroutine-swarm",
    params=(Param("tasks", int, 1000), Param("steps", int, 10), Param("sleep_ms", int, 0)),
    models=MODELS,
)
