"""What every pool-based model shares: the contract's chunking rule, pools made inside the timed
region, and the count of the workers that really processed a chunk."""
from __future__ import annotations

import multiprocessing
import os
import threading
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
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

    def run(self, function: Callable, *args) -> tuple[int, Any]:
        """(the thread's native id, function(*args)), after the first round is complete."""
        if self.barrier is not None and not getattr(self.entered, "done", False):
            self.entered.done = True
            self.barrier.wait()
        return threading.get_native_id(), function(*args)

    def abort(self) -> None:
        """Releases every thread waiting in the first round (with BrokenBarrierError) after a failure."""
        if self.barrier is not None:
            self.barrier.abort()


_process_first_round: Any = None   # set in each forked pool process by _start_pool_process
_process_entered = False


def _start_pool_process(barrier, initializer: Callable | None, initargs: tuple) -> None:
    global _process_first_round, _process_entered
    _process_first_round, _process_entered = barrier, False
    if initializer is not None:
        initializer(*initargs)


def run_in_pool_process(function: Callable, *args) -> tuple[int, Any]:
    """(the process id, function(*args)), after the first round is complete."""
    global _process_entered
    if _process_first_round is not None and not _process_entered:
        _process_entered = True
        _process_first_round.wait()
    return os.getpid(), function(*args)


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


def gather(futures: Iterable[Future]) -> tuple[list, int]:
    """The results in submission order, and how many distinct workers produced them."""
    results, workers = [], set()
    for future in futures:
        worker, result = future.result()
        workers.add(worker)
        results.append(result)
    return results, len(workers)


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
