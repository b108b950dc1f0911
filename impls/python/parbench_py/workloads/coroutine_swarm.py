"""coroutine-swarm: `tasks` coroutines at once, each yielding before every FizzBuzz step it folds into the digest."""
from __future__ import annotations

import asyncio
import time

from ..digest import MASK64, digest_hex, fnv1a64
from ..event_loops import UVLOOP_AVAILABLE, run_on
from ..protocol import Job, Model, Outcome, Param, Workload


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


class Switches:
    """extra.switches: at every step the running task swaps itself into `last`; a different task
    there is one switch. The loop runs every task on one thread, so plain attributes do."""

    def __init__(self) -> None:
        self.last: int | None = None
        self.count = 0

    def step(self, me: int) -> None:
        previous, self.last = self.last, me
        if previous is not None and previous != me:
            self.count += 1


class Tickets:
    """extra.tickets and extra.ticket_probes (protocol 4, proof of interleaving): every step draws
    the next ticket; about 16 probe tasks, picked by the salt, report their first and last. One
    thread runs the loop, so a plain counter is the fetch-add."""

    def __init__(self, tasks: int, salt: int) -> None:
        self.drawn = 0
        self.stride, self.salt = max(1, tasks // 16), salt
        self.probes: list[list[int]] = []

    def draw(self) -> int:
        ticket, self.drawn = self.drawn, self.drawn + 1
        return ticket

    def finished(self, task: int, first: int, last: int) -> None:
        if (task + self.salt) % self.stride == 0:
            self.probes.append([task, first, last])

    def extra(self) -> dict:
        return {"tickets": self.drawn, "ticket_probes": self.probes}


def seq_digest(tasks: int, steps: int, salt: int = 0, switches: Switches | None = None) -> int:
    switches = switches or Switches()
    total = 0
    for task in range(tasks):
        for step in range(steps):
            switches.step(task)
            total += line_hash(task + salt, step)
    return total & MASK64


async def _swarm_task(task: int, steps: int, pause_s: float, salt: int, switches: Switches,
                      tickets: Tickets) -> int:
    total, first, ticket = 0, -1, -1
    for step in range(steps):
        await asyncio.sleep(pause_s)  # sleep(0) is asyncio's bare yield
        switches.step(task)
        ticket = tickets.draw()
        first = ticket if step == 0 else first
        total += line_hash(task + salt, step)
    if steps:
        tickets.finished(task, first, ticket)
    return total


async def swarm(tasks: int, steps: int, sleep_ms: int, started_ns: int, salt: int = 0,
                switches: Switches | None = None, tickets: Tickets | None = None) -> tuple[int, int]:
    """The digest and spawn_ns: nanoseconds from `started_ns` until every task exists."""
    pause_s = sleep_ms / 1000
    switches = switches or Switches()
    tickets = tickets or Tickets(tasks, salt)
    running = [asyncio.create_task(_swarm_task(task, steps, pause_s, salt, switches, tickets))
               for task in range(tasks)]
    spawn_ns = time.monotonic_ns() - started_ns
    totals = await asyncio.gather(*running)
    return sum(totals) & MASK64, spawn_ns


def _params(job: Job) -> tuple[int, int, int]:
    return job.params["tasks"], job.params["steps"], job.params["sleep_ms"]


def run_seq(job: Job) -> Outcome:
    tasks, steps, _ = _params(job)
    switches = Switches()
    total = seq_digest(tasks, steps, job.params["salt"], switches)
    return Outcome(tasks, lambda: digest_hex(total), {"switches": switches.count})


async def _bare_yields(count: int) -> int:
    started = time.monotonic_ns()
    for _ in range(count):
        await asyncio.sleep(0)
    return time.monotonic_ns() - started


async def yield_ceiling_ns(count: int) -> int:
    """The yield ceiling: one Task, made before the clock, does `count` bare yields and forms no lines."""
    return await asyncio.create_task(_bare_yields(count))


def _yield_ceiling(job: Job, loop_name: str) -> dict:
    tasks, steps, _ = _params(job)
    return {"ceiling": "yield", "ceiling_ns": run_on(loop_name, yield_ceiling_ns(tasks * steps))}


def _run_async(job: Job, loop_name: str) -> Outcome:
    started_ns = time.monotonic_ns()
    switches, tickets = Switches(), Tickets(job.params["tasks"], job.params["salt"])
    total, spawn_ns = run_on(loop_name, swarm(*_params(job), started_ns, job.params["salt"], switches, tickets))
    # Only bare yields have a ceiling: a timer sleep's cost is the timer, not the switch.
    ceiling = (lambda: _yield_ceiling(job, loop_name)) if job.params["sleep_ms"] == 0 else None
    return Outcome(job.params["tasks"], lambda: digest_hex(total), {"spawn_ns": spawn_ns, "loop": loop_name,
                                                        "switches": switches.count, **tickets.extra()},
                   ceiling=ceiling)


# Protocol 3: the tasks are the work, made in every repetition on the one event-loop thread;
# there is no separate pool of OS threads to start cold or keep warm.
TASKS_ARE_THE_WORK = {"cold": "the tasks are the work itself, made in every repetition on one event-loop thread: "
                              "there is no pool of OS threads to start",
                      "warm": "the tasks are the work itself, made in every repetition on one event-loop thread: "
                              "there is no pool of OS threads to keep"}
MODELS = {
    "seq": Model("seq", run_seq, note="the same lines in a plain loop, no yields (the article's program 1); "
                                      "sleep_ms is ignored"),
    "asyncio": Model("async", lambda job: _run_async(job, "asyncio"), start_unavailable=TASKS_ARE_THE_WORK,
                     note="one asyncio Task per task, asyncio.sleep(0) or asyncio.sleep(ms) before each step; "
                          "default event loop"),
}
if UVLOOP_AVAILABLE:
    MODELS["uvloop"] = Model("async", lambda job: _run_async(job, "uvloop"), start_unavailable=TASKS_ARE_THE_WORK,
                             note="the asyncio model on uvloop's event loop")

WORKLOAD = Workload(
    name="coroutine-swarm",
    params=(Param("tasks", int, 1000), Param("steps", int, 10), Param("sleep_ms", int, 0)),
    models=MODELS,
    variant="salt",   # a repetition's variant is the salt s: task t forms its lines with the id t + s (base 0)
)
