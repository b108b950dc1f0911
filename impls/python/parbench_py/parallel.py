"""What every pool-based model shares: the contract's chunking rule, pools made inside each
repetition (cold) or once before the ready line (warm), and the count of the workers that
really processed a chunk."""
from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator

from .protocol import Job, LimitReached, Session, processes_cpu_ns

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


# What each start mode makes (protocol 3), for --list.
THREAD_STARTS = {
    "cold": "a ThreadPoolExecutor of W threads made in each repetition (its threads start as the chunks arrive) "
            "and shut down, every thread joined, before the clock stops",
    "warm": "one ThreadPoolExecutor whose W threads all run before the ready line; each repetition submits its "
            "chunks and waits for them",
}
PROCESS_STARTS = {
    "cold": "a fork ProcessPoolExecutor made in each repetition (its W processes forked at the first chunk) and "
            "shut down, every process reaped, before the clock stops",
    "warm": "one fork ProcessPoolExecutor whose W processes all run a task before the ready line; each repetition "
            "submits its chunks and waits for them",
}


# Every worker takes one chunk before any worker takes a second: without it, a worker that starts
# first can drain a small input before the others exist, and a "parallel" case quietly runs on
# one worker. After the first round chunks go to whichever worker is free (the pool's own queue).
# The parties are min(workers, chunks), so the barrier never waits for a chunk that does not exist.

class ThreadFirstRound:
    """The first-round barrier of one repetition on a thread pool; each thread waits at it once
    (a warm pool's threads get a new one, and so a new round, every repetition)."""

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


class ProcessFirstRound:
    """The first-round barrier of a process pool, one round per repetition.

    Made before the fork, so every pool process inherits it (multiprocessing's locks cannot be
    sent to a running process). A barrier of fixed parties cannot serve a warm pool whose rounds
    differ in size (a batch-job repetition after the first finds no pending document), so the
    processes count their arrivals in one shared number and each waits until the count reaches
    its round's target: the parties of every round so far, which the parent hands over with
    each task."""

    def __init__(self):
        self.arrived = FORK.Value("q", 0, lock=False)   # guarded by `changed`
        self.changed = FORK.Condition()
        self.rounds = 0
        self.target = 0

    def next_round(self, parties: int) -> tuple[int, int]:
        """(round, target) for the tasks of the parent's next round of `parties` processes."""
        self.rounds += 1
        self.target += parties
        return self.rounds, self.target

    def arrive(self, target: int) -> None:
        """In a pool process, at its first task of a round: waits until the round is complete."""
        with self.changed:
            self.arrived.value += 1
            self.changed.notify_all()
            self.changed.wait_for(lambda: self.arrived.value >= target)


_process_first_round: ProcessFirstRound | None = None   # set in each forked pool process by _start_pool_process
_process_round = 0


def _start_pool_process(first_round: ProcessFirstRound, initializer: Callable | None, initargs: tuple) -> None:
    global _process_first_round, _process_round
    _process_first_round, _process_round = first_round, 0
    if initializer is not None:
        initializer(*initargs)


def run_in_pool_process(round_id: int, target: int, function: Callable, *args) -> tuple[int, int, int, Any]:
    """(the process id, start, end, function(*args)), after round `round_id` is complete."""
    global _process_round
    if _process_round != round_id:
        _process_round = round_id
        _process_first_round.arrive(target)
    return timed(os.getpid(), function, *args)


def submit_to_threads(executor: ThreadPoolExecutor, first_round: ThreadFirstRound, function: Callable,
                      argument_tuples: Iterable[tuple]) -> list[Future]:
    """Submits function(*arguments) per chunk; a failed submit (a thread that cannot start: a
    limit) releases the threads already waiting in the first round, so the pool can shut down."""
    try:
        return [executor.submit(first_round.run, function, *arguments) for arguments in argument_tuples]
    except RuntimeError as error:
        first_round.abort()
        if "can't start new thread" in str(error):
            raise LimitReached(str(error)) from error
        raise
    except BaseException:
        first_round.abort()
        raise


def _wait_for_each(futures: list[Future]) -> None:
    for future in futures:
        future.result()


class ThreadPool:
    """A ThreadPoolExecutor of `workers` threads. Its threads start as chunks arrive (cold: in
    the repetition), or all at once with start_every_worker (a warm pool, a ceiling's pool)."""

    def __init__(self, workers: int, initializer: Callable | None = None):
        self.workers = workers
        self.executor = ThreadPoolExecutor(max_workers=workers, initializer=initializer)

    def start_every_worker(self) -> "ThreadPool":
        """Every thread exists and has run once: a task per thread, held at a barrier of all of them."""
        everyone = threading.Barrier(self.workers)
        _wait_for_each([self.executor.submit(everyone.wait) for _ in range(self.workers)])
        return self

    def run_chunks(self, function: Callable, argument_tuples: list[tuple]) -> "Gathered":
        """function(*arguments) per chunk, every thread taking one before any takes a second."""
        first_round = ThreadFirstRound(min(self.workers, len(argument_tuples)))
        return gather(submit_to_threads(self.executor, first_round, function, argument_tuples))

    def run_each(self, function: Callable, argument_tuples: list[tuple]) -> None:
        """function(*arguments) per chunk, from the pool's queue (a ceiling: nothing is kept)."""
        _wait_for_each([self.executor.submit(function, *arguments) for arguments in argument_tuples])

    def shutdown(self) -> None:
        self.executor.shutdown(wait=True)   # every thread joined


class ProcessPool:
    """A ProcessPoolExecutor of `workers` processes forked at its first task (the fork start
    method makes them all at once); everything the initializer gets is inherited, never pickled."""

    def __init__(self, workers: int, initializer: Callable | None = None, initargs: tuple = ()):
        self.workers = workers
        self.pids: set[int] = set()   # known once start_every_worker has run
        self.first_round = ProcessFirstRound()
        self.executor = ProcessPoolExecutor(max_workers=workers, mp_context=FORK, initializer=_start_pool_process,
                                            initargs=(self.first_round, initializer, initargs))

    def start_every_worker(self) -> "ProcessPool":
        """Every process exists and has run a task (a first round of no-ops, one per process)."""
        self.pids = {pid for pid, _, _ in self.run_chunks(int, [()] * self.workers).busy}
        return self

    def run_chunks(self, function: Callable, argument_tuples: list[tuple]) -> "Gathered":
        """function(*arguments) per chunk, every process taking one before any takes a second."""
        round_id, target = self.first_round.next_round(min(self.workers, len(argument_tuples)))
        return gather([self.executor.submit(run_in_pool_process, round_id, target, function, *arguments)
                       for arguments in argument_tuples])

    def run_each(self, function: Callable, argument_tuples: list[tuple]) -> None:
        """function(*arguments) per chunk, from the pool's queue (a ceiling: nothing is kept)."""
        _wait_for_each([self.executor.submit(function, *arguments) for arguments in argument_tuples])

    def shutdown(self) -> None:
        self.executor.shutdown(wait=True)   # every process reaped


@dataclass
class WarmPool(Session):
    """The warm start (protocol 3): one pool whose every worker runs before the ready line,
    handed each repetition's chunks, shut down at the end of stdin (protocol 4)."""
    pool: ThreadPool | ProcessPool
    extra: dict[str, Any] = field(default_factory=dict)

    def workers_cpu_ns(self) -> int:
        """A process pool's workers live on and are not reaped inside the clock; threads are in getrusage."""
        return processes_cpu_ns(self.pool.pids) if isinstance(self.pool, ProcessPool) else 0


def warm_session(make_pool: Callable[[dict[str, Any], int, Any], ThreadPool | ProcessPool]):
    """A Model.session: make_pool(params, workers, loaded input), every worker started, for the whole process."""
    @contextlib.contextmanager
    def session(params: dict[str, Any], workers: int, loaded: Any) -> Iterator[WarmPool]:
        pool = make_pool(params, workers, loaded)
        try:
            yield WarmPool(pool.start_every_worker())
        finally:
            pool.shutdown()
    return session


WARM_THREADS = warm_session(lambda params, workers, loaded: ThreadPool(workers))
WARM_PROCESSES = warm_session(lambda params, workers, loaded: ProcessPool(workers))


@contextlib.contextmanager
def pool_for(job: Job, make_cold: Callable[[], ThreadPool | ProcessPool]) -> Iterator[ThreadPool | ProcessPool]:
    """The pool a repetition runs on: warm, the process's own; cold, make_cold() made here and
    shut down (every worker ended) when the block is left, inside the repetition's clock."""
    if isinstance(job.session, WarmPool):
        yield job.session.pool
        return
    pool = make_cold()
    try:
        yield pool
    finally:
        pool.shutdown()


def ceiling_on(job: Job, make_started: Callable[[], ThreadPool | ProcessPool],
               ceiling: Callable[[ThreadPool | ProcessPool], dict]) -> dict:
    """A ceiling on the model's workers: warm, the process's pool; cold, a pool of its kind whose
    workers start here, before the ceiling's clock (reported as `ceiling_setup_ns`), and end after
    it (the protocol books that under `cleanup_ns`). Unreported, the two left about 10 ms of a
    cold process pool's repetition outside every phase."""
    if isinstance(job.session, WarmPool):
        return ceiling(job.session.pool)
    setup_started = time.monotonic_ns()
    with pool_for(job, make_started) as pool:
        setup_ns = time.monotonic_ns() - setup_started
        return {**ceiling(pool), "ceiling_setup_ns": setup_ns}


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


def chunk_extra(chunk: int, chunks: int, workers_used: int) -> dict[str, int]:
    return {"chunk": chunk, "chunks": chunks, "workers_used": workers_used}
