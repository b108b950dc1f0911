"""What every pool-based model shares: the contract's chunking rule, pools made inside the timed
region, and the count of the workers that really processed a chunk."""
from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Callable, Iterable

SDES_CHUNK_CAP = 1 << 20     # bytes (docs/workloads/README.md: "One chunking rule")
KEYGEN_CHUNK_CAP = 1024      # keys
FORK = multiprocessing.get_context("fork")   # named: 3.14 changes Linux's default start method


def default_chunk(total: int, workers: int, cap: int) -> int:
    """chunk = min(cap, ceil(total / workers)), at least 1 so an empty input still has a chunk size."""
    return max(1, min(cap, -(-total // workers)))


def chunk_spans(total: int, chunk: int) -> list[tuple[int, int]]:
    """[start, stop) of every chunk; the last one may be short, an empty input has none."""
    return [(start, min(total, start + chunk)) for start in range(0, total, chunk)]


def chunk_param(text: str) -> int:
    """--chunk N: a positive work unit, or 0 for the contract's default."""
    value = int(text)
    if value < 0:
        raise ValueError(text)
    return value


chunk_param.__name__ = "chunk size (>= 1, or 0 for the default min(cap, ceil(total / workers)))"


# Every worker takes one chunk before any worker takes a second: without it, a worker that starts
# first can drain a small input before the others exist, and a "parallel" case quietly runs on
# one worker. After the first round chunks go to whichever worker is free (the pool's own queue).
# The parties are min(workers, chunks), so the barrier never waits for a chunk that does not exist.

class ThreadFirstRound:
    """The first-round barrier for the threads of one pool; each thread waits at it once."""

    def __init__(self, parties: int):
        self.barrier = threading.Barrier(parties) if parties > 1 else None
        self.entered = threading.local()

    def run(self, function: Callable, *args) -> tuple[int, int, int, Any]:
        """(the thread's native id, start, end, function(*args)) after the first round is complete;
        start and end are time.monotonic_ns around the chunk (its busy interval)."""
        if self.barrier is not None and not getattr(self.entered, "done", False):
            self.entered.done = True
            self.barrier.wait()
        return timed(threading.get_native_id(), function, *args)

    def abort(self) -> None:
        """Releases every thread waiting in the first round (with BrokenBarrierError) after a failure."""
        if self.barrier is not None:
            self.barrier.abort()


def timed(worker: Any, function: Callable, *args) -> tuple[Any, int, int, Any]:
    """(worker, start, end, function(*args)): the chunk's busy interval on the machine-wide
    CLOCK_MONOTONIC (time.monotonic_ns), so threads and forked processes read the same clock."""
    start = time.monotonic_ns()
    result = function(*args)
    return worker, start, time.monotonic_ns(), result


_process_first_round: Any = None   # set in each forked pool process by _start_pool_process
_process_entered = False


def _start_pool_process(barrier, initializer: Callable | None, initargs: tuple) -> None:
    global _process_first_round, _process_entered
    _process_first_round, _process_entered = barrier, False
    if initializer is not None:
        initializer(*initargs)


def run_in_pool_process(function: Callable, *args) -> tuple[int, int, int, Any]:
    """(the process id, start, end, function(*args)), after the first round is complete."""
    global _process_entered
    if _process_first_round is not None and not _process_entered:
        _process_entered = True
        _process_first_round.wait()
    return timed(os.getpid(), function, *args)


def thread_pool(workers: int, chunks: int) -> tuple[ThreadPoolExecutor, ThreadFirstRound]:
    return ThreadPoolExecutor(max_workers=workers), ThreadFirstRound(min(workers, chunks))


def process_pool(workers: int, chunks: int, initializer: Callable | None = None,
                 initargs: tuple = ()) -> ProcessPoolExecutor:
    """A fork pool; everything the initializer gets is inherited by fork, never pickled."""
    parties = min(workers, chunks)
    barrier = FORK.Barrier(parties) if parties > 1 else None
    return ProcessPoolExecutor(max_workers=workers, mp_context=FORK, initializer=_start_pool_process,
                               initargs=(barrier, initializer, initargs))


def submit_to_threads(pool: ThreadPoolExecutor, first_round: ThreadFirstRound, function: Callable,
                      argument_tuples: Iterable[tuple]) -> list[Future]:
    """Submits function(*arguments) per chunk; a failed submit (a thread that cannot start)
    releases the threads already waiting in the first round, so the pool can shut down."""
    try:
        return [pool.submit(first_round.run, function, *arguments) for arguments in argument_tuples]
    except BaseException:
        first_round.abort()
        raise


@dataclass(frozen=True)
class Gathered:
    """What a pool's chunks gave back: results in submission order, the distinct workers that
    produced them, and each chunk's (worker, start, end) for extra.busy."""
    results: list
    workers_used: int
    busy: list[tuple[Any, int, int]]


def gather_timed(answers: Iterable[tuple[Any, int, int, Any]]) -> Gathered:
    """Gathered from (worker, start, end, result) answers, in the order given."""
    results, busy = [], []
    for worker, start, end, result in answers:
        busy.append((worker, start, end))
        results.append(result)
    return Gathered(results, len({worker for worker, _, _ in busy}), busy)


def gather(futures: Iterable[Future]) -> Gathered:
    """Waits for every future (each answering (worker, start, end, result)), in submission order."""
    return gather_timed(future.result() for future in futures)


def started_thread_pool(workers: int) -> ThreadPoolExecutor:
    """A pool whose `workers` threads all exist already (for a ceiling, started before its clock)."""
    executor = ThreadPoolExecutor(max_workers=workers)
    everyone = threading.Barrier(workers)
    for waited in [executor.submit(everyone.wait) for _ in range(workers)]:
        waited.result()
    return executor


def started_process_pool(workers: int, initializer: Callable | None = None,
                         initargs: tuple = ()) -> ProcessPoolExecutor:
    """A fork pool whose `workers` processes all run already (for a ceiling, started before its clock)."""
    executor = process_pool(workers, workers, initializer, initargs)
    for waited in [executor.submit(run_in_pool_process, int) for _ in range(workers)]:
        waited.result()
    return executor


def chunk_extra(chunk: int, chunks: int, workers_used: int) -> dict[str, int]:
    return {"chunk": chunk, "chunks": chunks, "workers_used": workers_used}
