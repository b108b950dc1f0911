"""spawn-chain: `n` units in a chain, each waiting for an integer, adding 1 and passing it on."""
from __future__ import annotations

import asyncio
import queue
import resource
import threading

from .event_loops import UVLOOP_AVAILABLE, run_on
from .protocol import Job, LimitReached, Model, Outcome, Param, Workload


async def _async_link(inbox: asyncio.Future, outbox: asyncio.Future) -> None:
    outbox.set_result(await inbox + 1)


async def async_chain(n: int) -> int:
    loop = asyncio.get_running_loop()
    answer = loop.create_future()
    outbox = answer
    links = []  # the loop only keeps weak references to tasks
    for _ in range(n):
        inbox = loop.create_future()
        links.append(loop.create_task(_async_link(inbox, outbox)))
        outbox = inbox
    await asyncio.sleep(0)  # every link starts and parks on its own Future before the pass
    outbox.set_result(0)    # the last link created
    return await answer


def _thread_link(inbox: queue.SimpleQueue, outbox: queue.SimpleQueue) -> None:
    outbox.put(inbox.get() + 1)


def thread_chain(n: int) -> int:
    answer: queue.SimpleQueue = queue.SimpleQueue()
    outbox = answer
    for _ in range(n):
        inbox: queue.SimpleQueue = queue.SimpleQueue()
        # Daemon threads, so a chain left waiting after a limit does not keep the process alive.
        link = threading.Thread(target=_thread_link, args=(inbox, outbox), daemon=True)
        try:
            link.start()
        except RuntimeError as error:  # CPython's "can't start new thread"
            raise LimitReached(f"{error} (after {threading.active_count() - 1} threads)") from error
        outbox = inbox
    outbox.put(0)
    return answer.get()


def _outcome(n: int, answer: int, extra: dict) -> Outcome:
    return Outcome(n, lambda: str(answer), extra)


def run_asyncio(job: Job) -> Outcome:
    return _outcome(job.params["n"], run_on("asyncio", async_chain(job.params["n"])), {"loop": "asyncio"})


def run_uvloop(job: Job) -> Outcome:
    return _outcome(job.params["n"], run_on("uvloop", async_chain(job.params["n"])), {"loop": "uvloop"})


def thread_stack_kib() -> int:
    """The stack each new thread reserves: threading.stack_size() if set, else glibc's RLIMIT_STACK."""
    if threading.stack_size():
        return threading.stack_size() // 1024
    soft, _ = resource.getrlimit(resource.RLIMIT_STACK)
    return soft // 1024 if soft != resource.RLIM_INFINITY else 8192


def run_threads(job: Job) -> Outcome:
    extra = {"thread_stack_kib": thread_stack_kib(),
             "max_user_processes": resource.getrlimit(resource.RLIMIT_NPROC)[0]}
    return _outcome(job.params["n"], thread_chain(job.params["n"]), extra)


MODELS = {
    "asyncio": Model("async", run_asyncio,
                     note="one asyncio Task per link, each awaiting its own Future; default event loop"),
    "threads": Model("threads", run_threads,
                     note="one OS thread (threading.Thread) per link, a queue.SimpleQueue as its mailbox; "
                          "default stack size; thread creation failure is a limit (exit 3)"),
}
if UVLOOP_AVAILABLE:
    MODELS["uvloop"] = Model("async", run_uvloop,
                             note="the asyncio model (one Task per link awaiting its own Future) on uvloop's loop")

WORKLOAD = Workload(name="spawn-chain", params=(Param("n", int, 1000),), models=MODELS)
