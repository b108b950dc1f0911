"""spawn-chain: `n` units in a chain, each waiting for an integer, adding 1 and passing it on."""
from __future__ import annotations

import asyncio
import queue
import resource
import threading
import time
from typing import Callable

from ..event_loops import UVLOOP_AVAILABLE, run_on
from ..protocol import Job, LimitReached, Model, Outcome, Param, Workload


class Census:
    """extra.live_units: every link counts itself when it starts running and when it ends; the
    chain reads started - ended at the moment it sends the start value. The async links run on
    one thread (plain counters); the thread links count under the Condition."""

    def __init__(self) -> None:
        self.started = self.ended = 0
        self.changed = threading.Condition()

    def thread_started(self) -> None:
        with self.changed:
            self.started += 1
            self.changed.notify()

    def thread_ended(self) -> None:
        with self.changed:
            self.ended += 1

    def live_once_started(self, links: int) -> int:
        """Waits until `links` threads run (a started Thread may not have reached its first line), then counts."""
        with self.changed:
            self.changed.wait_for(lambda: self.started >= links)
            return self.started - self.ended


async def _async_link(inbox: asyncio.Future, outbox: asyncio.Future, census: Census) -> None:
    census.started += 1
    value = await inbox
    outbox.set_result(value + 1)
    census.ended += 1


async def async_chain(n: int, start: int = 0) -> tuple[int, int]:
    """(the answer, live units when `start` was sent)."""
    loop = asyncio.get_running_loop()
    census = Census()
    answer = loop.create_future()
    outbox = answer
    links = []  # the loop only keeps weak references to tasks
    for _ in range(n):
        inbox = loop.create_future()
        links.append(loop.create_task(_async_link(inbox, outbox, census)))
        outbox = inbox
    await asyncio.sleep(0)  # every link starts and parks on its own Future before the pass
    live = census.started - census.ended
    outbox.set_result(start)    # the last link created
    return await answer, live


def _thread_link(inbox: queue.SimpleQueue, outbox: queue.SimpleQueue, census: Census) -> None:
    census.thread_started()
    outbox.put(inbox.get() + 1)
    census.thread_ended()


def thread_chain(n: int, start: int = 0) -> tuple[int, int]:
    """The chain of OS threads, (the answer, live units when `start` was sent); every link is
    joined before it returns (inside the timed region)."""
    census = Census()
    answer: queue.SimpleQueue = queue.SimpleQueue()
    outbox = answer
    links: list[threading.Thread] = []
    try:
        for _ in range(n):
            inbox: queue.SimpleQueue = queue.SimpleQueue()
            # Daemon threads, so an interrupted run never waits for links parked on their inboxes.
            link = threading.Thread(target=_thread_link, args=(inbox, outbox, census), daemon=True)
            link.start()
            links.append(link)
            outbox = inbox
    except RuntimeError as error:  # CPython's "can't start new thread"
        _pass_and_join(outbox, answer, links, census, start)   # the links that exist still end before the limit is reported
        raise LimitReached(f"{error} (after {len(links)} threads)") from error
    return _pass_and_join(outbox, answer, links, census, start)


def _pass_and_join(last_inbox: queue.SimpleQueue, answer: queue.SimpleQueue, links: list[threading.Thread],
                   census: Census, start: int) -> tuple[int, int]:
    live = census.live_once_started(len(links))   # "when all n exist, send the start value"
    last_inbox.put(start)
    result = answer.get()
    for link in links:
        link.join()
    return result, live


# The hand-off ceiling (docs/workloads/spawn-chain.md): two units of the model's kind, made
# before the clock, pass a counter back and forth with the model's own primitive until it has
# been handed over n times; the clock runs from the first send until the n-th is received.

def _thread_player(inbox: queue.SimpleQueue, partner: queue.SimpleQueue, n: int, finished: queue.SimpleQueue) -> None:
    while True:
        value = inbox.get()
        if value < 0:          # the partner finished: end
            return
        if value >= n:
            finished.put(time.monotonic_ns())
            partner.put(-1)
            return
        partner.put(value + 1)


def thread_hand_off_ns(n: int) -> int:
    """n hand-offs between two threads over queue.SimpleQueue, as the chain's links use."""
    inboxes = (queue.SimpleQueue(), queue.SimpleQueue())
    finished: queue.SimpleQueue = queue.SimpleQueue()
    players = [threading.Thread(target=_thread_player, args=(inboxes[k], inboxes[1 - k], n, finished), daemon=True)
               for k in (0, 1)]
    for player in players:
        player.start()
    started = time.monotonic_ns()
    inboxes[0].put(0)
    elapsed = finished.get() - started
    for player in players:
        player.join()
    return elapsed


async def _async_player(mailboxes: list, me: int, n: int, finished: asyncio.Future) -> None:
    loop = asyncio.get_running_loop()
    while True:
        value = await mailboxes[me]
        mailboxes[me] = loop.create_future()   # a Future is single-use: one per hand-off, as one per link
        if value < 0:
            return
        if value >= n:
            finished.set_result(time.monotonic_ns())
            mailboxes[1 - me].set_result(-1)
            return
        mailboxes[1 - me].set_result(value + 1)


async def async_hand_off_ns(n: int) -> int:
    """n hand-offs between two Tasks, each awaiting a Future the other completes."""
    loop = asyncio.get_running_loop()
    mailboxes = [loop.create_future(), loop.create_future()]
    finished = loop.create_future()
    players = [loop.create_task(_async_player(mailboxes, k, n, finished)) for k in (0, 1)]
    await asyncio.sleep(0)   # both players start and park on their Futures
    started = time.monotonic_ns()
    mailboxes[0].set_result(0)
    elapsed = (await finished) - started
    await asyncio.gather(*players)
    return elapsed


def _hand_off_ceiling(ns: int) -> dict:
    return {"ceiling": "hand-off", "ceiling_ns": ns}


def _outcome(n: int, answered: tuple[int, int], extra: dict, hand_off_ns: Callable[[], int]) -> Outcome:
    answer, live = answered
    return Outcome(n, lambda: str(answer), {**extra, "live_units": live},
                   ceiling=lambda: _hand_off_ceiling(hand_off_ns()))


def _run_async(job: Job, loop_name: str) -> Outcome:
    n = job.params["n"]
    return _outcome(n, run_on(loop_name, async_chain(n, job.params["start"])), {"loop": loop_name},
                    lambda: run_on(loop_name, async_hand_off_ns(n)))


def thread_stack_kib() -> int:
    """The stack each new thread reserves: threading.stack_size() if set, else glibc's RLIMIT_STACK."""
    if threading.stack_size():
        return threading.stack_size() // 1024
    soft, _ = resource.getrlimit(resource.RLIMIT_STACK)
    return soft // 1024 if soft != resource.RLIM_INFINITY else 8192


def run_threads(job: Job) -> Outcome:
    extra = {"thread_stack_kib": thread_stack_kib(),
             "max_user_processes": resource.getrlimit(resource.RLIMIT_NPROC)[0]}
    n = job.params["n"]
    return _outcome(n, thread_chain(n, job.params["start"]), extra, lambda: thread_hand_off_ns(n))


# Protocol 3: a chain's links are its work, made and ended in every repetition; no pool of OS
# threads runs them apart from the links themselves (asyncio's loop is the one main thread).
UNITS_ARE_THE_WORK = {"cold": "the links are the work itself: made and ended in every repetition, never a pool",
                      "warm": "the links are the work itself: links made before the ready line would be the answer "
                              "half computed"}
MODELS = {
    "asyncio": Model("async", lambda job: _run_async(job, "asyncio"), start_unavailable=UNITS_ARE_THE_WORK,
                     note="one asyncio Task per link, each awaiting its own Future; default event loop"),
    "threads": Model("threads", run_threads, start_unavailable=UNITS_ARE_THE_WORK,
                     note="one OS thread (threading.Thread) per link, a queue.SimpleQueue as its mailbox, every "
                          "link joined inside the timed region; default stack size; thread creation failure is "
                          "a limit (exit 3)"),
}
if UVLOOP_AVAILABLE:
    MODELS["uvloop"] = Model("async", lambda job: _run_async(job, "uvloop"), start_unavailable=UNITS_ARE_THE_WORK,
                             note="the asyncio model (one Task per link awaiting its own Future) on uvloop's loop")

# A repetition's variant is the start value sent into the chain (base 0); the answer is start + n.
WORKLOAD = Workload(name="spawn-chain", params=(Param("n", int, 1000),), models=MODELS, variant="start")
