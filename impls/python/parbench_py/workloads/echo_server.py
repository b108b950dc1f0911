"""echo-server: a TCP server on 127.0.0.1 that answers each request with its payload reversed, after
wait_us µs, in one of six concurrency models (workloads/echo-server.md; the conversation is docs/protocol.md's)."""
from __future__ import annotations

import asyncio
import ctypes
import itertools
import multiprocessing
import os
import signal
import socket
import struct
import sys
import threading
import time
from typing import Any, Callable

from ..event_loops import UVLOOP_AVAILABLE, uvloop
from ..protocol import Call, Model, Param, RunFailed, Workload, json_line, read_variant

HEADER = struct.Struct(">II")    # id, len: big-endian u32 each
MAX_PAYLOAD = 65_536
MAX_WAIT_US = 10_000_000
BACKLOG = max(4096, socket.SOMAXCONN)
# The harness writes a repetition's line once its client closed every connection; a server thread
# may still be between its last write and its count, so the line waits (this long at most) until
# every connection it accepted is closed on its side too.
SETTLE_S = 2.0


def bounded_int(low: int, high: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        value = int(text)
        if not low <= value <= high:
            raise ValueError(text)
        return value
    parse.__name__ = f"integer from {low:,} to {high:,}"
    return parse


def reversed_reply(header: bytes, payload: bytes) -> bytes:
    """The spec's reply: the request's own header, then its payload back to front."""
    return bytes(header) + bytes(payload[::-1])


def listen(port: int, blocking: bool = True) -> socket.socket:
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        listener.bind(("127.0.0.1", port))
    except OSError as error:
        listener.close()
        raise RunFailed(f"echo-server cannot listen on 127.0.0.1:{port}: {error.strerror}") from None
    listener.listen(BACKLOG)
    listener.setblocking(blocking)
    return listener


def os_threads(pid: int | str = "self") -> int:
    """The Threads: line of /proc/<pid>/status (0 for a process that is gone)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("Threads:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Tally:
    """Connections accepted, replies fully written and connections still open, since the last
    stats line, with the peak of OS threads; under a lock, as several threads may share it."""

    def __init__(self) -> None:
        self.changed = threading.Condition()
        self.accepted = self.replies = self.open = self.threads_peak = 0

    def opened(self) -> None:
        with self.changed:
            self.accepted += 1
            self.open += 1

    def replied(self) -> None:
        with self.changed:
            self.replies += 1

    def closed(self) -> None:
        with self.changed:
            self.open -= 1
            self.changed.notify_all()

    def saw_threads(self, count: int) -> None:
        with self.changed:
            self.threads_peak = max(self.threads_peak, count)

    def settled(self) -> bool:
        return self.open == 0

    def wait_settled(self) -> None:
        with self.changed:
            self.changed.wait_for(self.settled, timeout=SETTLE_S)

    def take(self) -> dict[str, int]:
        with self.changed:
            taken = {"accepted": self.accepted, "replies": self.replies,
                     "threads_peak": max(self.threads_peak, self.threads_now())}
            self.accepted = self.replies = self.threads_peak = 0
            return taken

    def threads_now(self) -> int:
        return os_threads()


def stats_line(repetition: int, taken: dict[str, int]) -> None:
    json_line({"rep": repetition, "items": taken["replies"], "checksum": "served", "extra": taken})


def answer_stdin(call: Call, tally: Tally) -> None:
    """One stats line per stdin line, once the connections have settled; returns at end of file."""
    for count in itertools.count():
        variant = read_variant(call.workload, count, sys.stdin.readline())
        if variant is None:
            return
        tally.wait_settled()
        stats_line(variant, tally.take())


# ---- blocking I/O: seq, threads, pool ----

def recv_exactly(conn: socket.socket, size: int) -> bytes | None:
    """Exactly `size` bytes, never more (the next request stays in the kernel); None at end of file."""
    data = b""
    while len(data) < size:
        chunk = conn.recv(size - len(data), socket.MSG_WAITALL)
        if not chunk:
            return None
        data += chunk
    return data


def serve_blocking(conn: socket.socket, wait_s: float, tally: Tally) -> None:
    """One connection to its end: header, payload, the wait, the reply; quietly closed at EOF,
    on a len over the limit or a reset."""
    try:
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        while True:
            header = recv_exactly(conn, HEADER.size)
            if header is None:
                return
            length = HEADER.unpack(header)[1]
            payload = recv_exactly(conn, length) if length <= MAX_PAYLOAD else None
            if payload is None:
                return
            if wait_s:
                time.sleep(wait_s)
            conn.sendall(reversed_reply(header, payload))
            tally.replied()
    except OSError:
        pass
    finally:
        conn.close()
        tally.closed()


def accepted(listener: socket.socket, tally: Tally):
    """The connections the listener accepts, counted, until it is shut down."""
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return   # shut down at end of stdin
        tally.opened()
        yield conn


def seq_server(listener: socket.socket, wait_s: float, tally: Tally, workers: int | None) -> Callable[[], None]:
    def serve_in_turn() -> None:
        for conn in accepted(listener, tally):
            serve_blocking(conn, wait_s, tally)
    threading.Thread(target=serve_in_turn, name="seq", daemon=True).start()
    return lambda: None


def threads_server(listener: socket.socket, wait_s: float, tally: Tally, workers: int | None) -> Callable[[], None]:
    def accept_loop() -> None:
        for conn in accepted(listener, tally):
            try:
                threading.Thread(target=serve_blocking, args=(conn, wait_s, tally), daemon=True).start()
            except RuntimeError as error:   # no thread for this one: its client sees it closed, a result
                print(f"echo-server threads: {error}; connection closed", file=sys.stderr)
                conn.close()
                tally.closed()
                continue
            tally.saw_threads(threading.active_count())
    threading.Thread(target=accept_loop, name="acceptor", daemon=True).start()
    return lambda: None


def pool_server(listener: socket.socket, wait_s: float, tally: Tally, workers: int | None) -> Callable[[], None]:
    def worker() -> None:
        for conn in accepted(listener, tally):
            serve_blocking(conn, wait_s, tally)
    for index in range(workers or 1):
        threading.Thread(target=worker, name=f"pool-{index}", daemon=True).start()
    return lambda: None


def serve_blocking_model(call: Call, start: Callable) -> None:
    listener = listen(call.params["port"])
    tally = Tally()
    start(listener, call.params["wait_us"] / 1e6, tally, call.workers)
    print_ready(call, listener)
    try:
        answer_stdin(call, tally)
    finally:
        # shutdown wakes every thread blocked in accept(); the daemon threads end with the process
        try:
            listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        listener.close()


# ---- one event loop: asyncio, uvloop, and each pre-forked worker ----

async def recv_exactly_async(loop: asyncio.AbstractEventLoop, conn: socket.socket, size: int) -> bytearray | None:
    buffer = bytearray(size)
    view, got = memoryview(buffer), 0
    while got < size:
        count = await loop.sock_recv_into(conn, view[got:])
        if count == 0:
            return None
        got += count
    return buffer


async def serve_async(conn: socket.socket, wait_s: float, tally: Any) -> None:
    loop = asyncio.get_running_loop()
    try:
        while True:
            header = await recv_exactly_async(loop, conn, HEADER.size)
            if header is None:
                return
            length = HEADER.unpack(header)[1]
            payload = await recv_exactly_async(loop, conn, length) if length <= MAX_PAYLOAD else None
            if payload is None:
                return
            if wait_s:
                await asyncio.sleep(wait_s)
            await loop.sock_sendall(conn, reversed_reply(header, payload))
            tally.replied()
    except OSError:
        pass
    finally:
        conn.close()
        tally.closed()


async def accept_async(listener: socket.socket, wait_s: float, tally: Any) -> None:
    loop = asyncio.get_running_loop()
    serving: set[asyncio.Task] = set()   # the loop keeps only weak references to tasks
    while True:
        try:
            conn, _ = await loop.sock_accept(listener)
        except OSError:
            return
        conn.setblocking(False)
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        tally.opened()
        task = loop.create_task(serve_async(conn, wait_s, tally))
        serving.add(task)
        task.add_done_callback(serving.discard)


def stdin_lines(loop: asyncio.AbstractEventLoop) -> asyncio.Queue:
    """stdin's lines as they come, on the loop's own thread (its selector watches fd 0); None at end of file."""
    lines: asyncio.Queue = asyncio.Queue()
    pending = bytearray()

    def readable() -> None:
        chunk = os.read(0, 65_536)
        pending.extend(chunk)
        while b"\n" in pending:
            line, _, rest = bytes(pending).partition(b"\n")
            pending[:] = rest
            lines.put_nowait(line.decode() + "\n")
        if not chunk:
            loop.remove_reader(0)
            if pending:
                lines.put_nowait(pending.decode())
            lines.put_nowait(None)
    try:
        loop.add_reader(0, readable)
    except (OSError, ValueError):   # a regular file cannot be watched: a thread reads it instead
        def read_all() -> None:
            for line in sys.stdin:
                loop.call_soon_threadsafe(lines.put_nowait, line)
            loop.call_soon_threadsafe(lines.put_nowait, None)
        threading.Thread(target=read_all, daemon=True).start()
    return lines


async def answer_stdin_async(call: Call, tally: Any) -> None:
    lines = stdin_lines(asyncio.get_running_loop())
    for count in itertools.count():
        line = await lines.get()
        variant = read_variant(call.workload, count, line or "")
        if variant is None:
            return
        deadline = time.monotonic() + SETTLE_S
        while not tally.settled() and time.monotonic() < deadline:
            await asyncio.sleep(0.001)
        stats_line(variant, tally.take())


async def event_loop_main(call: Call, listener: socket.socket, tally: Tally) -> None:
    acceptor = asyncio.get_running_loop().create_task(accept_async(listener, call.params["wait_us"] / 1e6, tally))
    print_ready(call, listener)
    try:
        await answer_stdin_async(call, tally)
    finally:
        listener.close()
        acceptor.cancel()


def run_event_loop(call: Call, loop_factory: Callable | None) -> None:
    listener = listen(call.params["port"], blocking=False)
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        runner.run(event_loop_main(call, listener, Tally()))


# ---- processes: pre-forked workers, each one asyncio loop over the shared listener ----

class WorkerTally:
    """One pre-forked worker's counters, in memory shared with the parent: each slot has one writer."""
    ACCEPTED, REPLIES, OPEN = range(3)

    def __init__(self, slots: Any, worker: int) -> None:
        self.slots, self.base = slots, 3 * worker

    def opened(self) -> None:
        self.slots[self.base + self.ACCEPTED] += 1
        self.slots[self.base + self.OPEN] += 1

    def replied(self) -> None:
        self.slots[self.base + self.REPLIES] += 1

    def closed(self) -> None:
        self.slots[self.base + self.OPEN] -= 1


class ForkedTally(Tally):
    """The parent's view: the workers' sums since the last line, the tree's OS threads."""

    def __init__(self, slots: Any, pids: list[int]) -> None:
        super().__init__()
        self.slots, self.pids = slots, pids
        self.taken_accepted = self.taken_replies = 0

    def _sum(self, slot: int) -> int:
        return sum(self.slots[slot::3])

    def settled(self) -> bool:
        return self._sum(WorkerTally.OPEN) == 0

    def wait_settled(self) -> None:
        deadline = time.monotonic() + SETTLE_S
        while not self.settled() and time.monotonic() < deadline:
            time.sleep(0.001)

    def take(self) -> dict[str, int]:
        accepted, replies = self._sum(WorkerTally.ACCEPTED), self._sum(WorkerTally.REPLIES)
        taken = {"accepted": accepted - self.taken_accepted, "replies": replies - self.taken_replies,
                 "threads_peak": self.threads_now()}
        self.taken_accepted, self.taken_replies = accepted, replies
        return taken

    def threads_now(self) -> int:
        return os_threads() + sum(os_threads(pid) for pid in self.pids)


def _die_with_parent() -> None:
    """A worker gets SIGTERM when the server process ends, however it ends (prctl PR_SET_PDEATHSIG)."""
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)


def _forked_worker(listener: socket.socket, wait_s: float, tally: WorkerTally) -> None:
    _die_with_parent()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    with asyncio.Runner() as runner:
        runner.run(accept_async(listener, wait_s, tally))


def run_processes(call: Call) -> None:
    listener = listen(call.params["port"], blocking=False)
    workers = call.workers or 1
    slots = multiprocessing.RawArray("q", 3 * workers)   # anonymous shared memory, inherited by fork
    pids = []
    sys.stdout.flush()
    for worker in range(workers):
        pid = os.fork()
        if pid == 0:
            try:
                _forked_worker(listener, call.params["wait_us"] / 1e6, WorkerTally(slots, worker))
            finally:
                os._exit(0)
        pids.append(pid)
    try:
        print_ready(call, listener)
        answer_stdin(call, ForkedTally(slots, pids))
    finally:
        listener.close()
        for pid in pids:
            os.kill(pid, signal.SIGTERM)
        for pid in pids:
            os.waitpid(pid, 0)


# ---- the models ----

DETAILS = {
    "seq": "one connection at a time on one thread, blocking I/O: the accept loop serves a connection to its end",
    "threads": "one OS thread (threading.Thread) per connection, blocking I/O and time.sleep; GIL on",
    "pool": "--workers OS threads, each accepting and serving one connection at a time, blocking I/O; GIL on",
    "asyncio": "one asyncio event loop on one thread: a Task per connection over loop.sock_recv_into/sock_sendall, "
               "asyncio.sleep for the wait",
    "uvloop": "the asyncio model on uvloop's event loop (libuv), one thread",
    "processes": "--workers pre-forked processes sharing the listening socket, each one asyncio event loop",
}


def serve(call: Call) -> None:
    model = call.model_name
    if model in BLOCKING:
        serve_blocking_model(call, BLOCKING[model])
    elif model == "processes":
        run_processes(call)
    else:
        run_event_loop(call, uvloop.new_event_loop if model == "uvloop" else None)


def print_ready(call: Call, listener: socket.socket) -> None:
    extra: dict[str, Any] = {"model_detail": DETAILS[call.model_name]}
    if call.workers is not None:
        extra["workers"] = call.workers
    json_line({"ready": "none", "port": listener.getsockname()[1], "extra": extra})


def _served_not_timed(job: Any) -> Any:
    raise RunFailed("echo-server is a server: it is served by serve(), not run as a timed repetition")


BLOCKING = {"seq": seq_server, "threads": threads_server, "pool": pool_server}
FAMILIES = {"seq": "seq", "threads": "threads", "pool": "pool", "asyncio": "event-loop", "uvloop": "event-loop",
            "processes": "processes"}
WORKERS = {"pool", "processes"}
# A server makes its threads or processes before its ready line and its client times it round by round.
NO_START_MODES = {"cold": "a server makes its workers before its ready line; its rounds are timed by the load "
                          "generator, not by a start",
                  "warm": "a server's workers are made once, before its ready line, for every round: there is no "
                          "per-round start to keep warm"}
MODEL_NAMES = ["seq", "threads", "pool", "asyncio", *(["uvloop"] if UVLOOP_AVAILABLE else []), "processes"]
# Said in --list (models_unavailable) rather than left out in silence.
UNAVAILABLE = {} if UVLOOP_AVAILABLE else {"uvloop": "the uvloop package is not installed (pip install uvloop)"}

WORKLOAD = Workload(
    name="echo-server",
    params=(Param("wait_us", bounded_int(0, MAX_WAIT_US), 0), Param("port", bounded_int(0, 65_535), 0)),
    models={name: Model(FAMILIES[name], _served_not_timed, workers=name in WORKERS, detail=DETAILS[name],
                        start_unavailable=NO_START_MODES if name in WORKERS else {})
            for name in MODEL_NAMES},
    serve=serve,
    unavailable=UNAVAILABLE,
)
