"""echo-server's run loop (docs/protocol.md, "echo-server: a server, the launcher and the load
generator"): the launcher runs and watches the server as it runs every implementation (sealed,
in its cgroup, killed with its tree), while the harness drives the repetitions itself.

The launcher's own feed writes a variant as soon as a line arrives; a server's repetition instead
happens between its lines, in the load generator, which runs here, on the harness's side, outside
the server's tree and cgroup. So the server's stdin is a FIFO this module holds (the launcher
gives it /dev/null, and a fixed `sh -c` redirects it, raising the descriptors' soft limit to the
hard one on the way), and the launcher echoes the server's stdout as it comes:
  ready line (with the port) → the load generator's repetition 0 → "0\\n" to the server → its
  line for repetition 0 → repetition 1 → … → end of file on the FIFO after the last line.
A repetition the load generator fails ends the conversation at once: end of file, and the
server has 2 s to go before the launcher's timeout or its end of the tree does it.

Each of the server's lines is then read as the repetition's: the load generator's time, replies
and digest in place of what the server may not report, its percentiles in extra beside the
server's own counts."""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parbench.escaping import one_line
from parbench.measure.loadgen import Load, LoadResult, loadgen_binary, run_load
from parbench.measure.process import Finished, run_measured

# The server's stdin from the FIFO, and as many descriptors as the machine's hard limit allows
# (a server holds one a connection). Values reach it only as "$@": nothing is parsed by the shell.
STDIN_FROM_FIFO = 'fifo=$1; shift; ulimit -n "$(ulimit -H -n)" 2>/dev/null; exec "$@" < "$fifo"'
MARGIN_S = 3             # of the process's time, kept for its end after the last repetition
MIN_LOAD_S = 1.0
# The longest one repetition may take, within the process's time: a server that stops replying
# costs this, not the case's whole timeout (two hours at the seed scale). The slowest honest
# repetitions seen: Python's pool x2 with a 1 ms wait, 15 s at 1,000 connections.
REPETITION_TIMEOUT_S = 300
# What the line of a repetition takes from the load generator, never from the server.
HARNESS_OWNED = ("ns", "items", "checksum")

# How a failure of the load generator reads as a case's outcome.
# "open": the load generator ran out of descriptors (the hard limit of `ulimit -n`): the limit of
# this machine, a result, recorded as the case's limit.
OUTCOMES = {"wrong-byte": "wrong-checksum", "timeout": "timeout", "open": "limit"}


@dataclass
class Failure:
    outcome: str
    detail: str


@dataclass
class Driven:
    """A process run by this loop: what the launcher measured (its lines already the
    repetitions'), the load generator's results in order, and the failure that ended it early."""
    finished: Finished
    loads: list[LoadResult]
    failure: Failure | None


@dataclass
class _Conversation:
    """The harness's side of one server's stdin and stdout, fed by the launcher's echo frames."""
    writer: int
    seeds: list[int]
    params: dict[str, Any]
    repetitions: int
    deadline: float
    loads: list[LoadResult] = field(default_factory=list)
    failure: Failure | None = None
    port: int | None = None
    _pending: bytes = b""
    _lines: int = 0

    def heard(self, chunk: bytes) -> None:
        self._pending += chunk
        while b"\n" in self._pending:
            line, self._pending = self._pending.split(b"\n", 1)
            self._lines += 1
            if self.writer >= 0:
                self._answer(line.decode(errors="replace"))

    def _answer(self, line: str) -> None:
        if self._lines == 1:
            self.port = _port_of(line)
            if self.port is None:
                return self._fail("bad-output", f"its first line is not a ready line naming its port "
                                                f"({{\"ready\":…,\"port\":P}}): {ascii(line[:120])}")
        if len(self.loads) >= self.repetitions:
            return self.end()
        self._repetition()

    def _repetition(self) -> None:
        index = len(self.loads)
        left = min(self.deadline - time.monotonic() - MARGIN_S, REPETITION_TIMEOUT_S)
        if left < MIN_LOAD_S:
            return self._fail("timeout", f"no time left for repetition {index} within the case's timeout")
        load = Load(int(self.params["connections"]), int(self.params["requests"]), int(self.params["len"]),
                    self.seeds[index])
        result = run_load(self.port, load, left)
        self.loads.append(result)
        if not result.ok:
            why = result.failure or f"{result.replies} of {result.expected_replies} replies"
            if result.failure_kind == "open":
                why += f" (the load generator holds one descriptor a connection; its limit is {result.nofile_limit:,})"
            return self._fail(OUTCOMES.get(result.failure_kind or "", "bad-output"),
                              f"repetition {index} (warm-ups count from 0): the load generator: {one_line(why)}")
        try:
            os.write(self.writer, f"{index}\n".encode())
        except OSError as error:
            self._fail("crash", f"repetition {index}: its stdin could not be written ({error.strerror})")

    def _fail(self, outcome: str, detail: str) -> None:
        self.failure = self.failure or Failure(outcome, detail)
        self.end()

    def end(self) -> None:
        """End of file on the server's stdin: it stops serving and exits."""
        if self.writer >= 0:
            os.close(self.writer)
            self.writer = -1


def _port_of(line: str) -> int | None:
    try:
        record = json.loads(line)
    except ValueError:
        return None
    port = record.get("port") if isinstance(record, dict) and "ready" in record else None
    return port if isinstance(port, int) and not isinstance(port, bool) and 0 < port < 65536 else None


def run(argv: list[str], timeout_s: float, memory_limit_kb: int | None, seeds: list[int], params: dict[str, Any],
        repetitions: int, first_timed: int, scratch: Path, **seal) -> Driven:
    """One server process through `repetitions` repetitions (the first `first_timed` warm-ups).
    LoadgenMissing before anything starts where the load generator cannot be built."""
    loadgen_binary()
    fifo = scratch / "parbench-stdin"
    os.mkfifo(fifo)
    os.chmod(fifo, 0o644)                 # the unprivileged user it runs as reads it
    writer = os.open(fifo, os.O_RDWR | os.O_CLOEXEC)   # read-write: opening it never blocks
    talk = _Conversation(writer, seeds, params, repetitions, time.monotonic() + timeout_s)
    try:
        # A feed the server never reads (its stdin is the FIFO) turns on the launcher's readings at
        # each line: the tree's threads, its CPU between lines, the kernel's peak of its tasks.
        finished = run_measured(["/bin/sh", "-c", STDIN_FROM_FIFO, "sh", str(fifo), *argv], timeout_s,
                                memory_limit_kb, echo_stdout=talk.heard, feed=[0] * repetitions, **seal)
    finally:
        talk.end()
        fifo.unlink(missing_ok=True)
    finished.fed_ns = []        # what the launcher wrote went nowhere: the repetitions are this loop's
    finished.stdout_lines = repetition_lines(finished.stdout_lines, talk.loads)
    finished.first_timed, finished.feed_verdict = first_timed, "fixed"
    finished.repetitions_seen = len(talk.loads)
    return Driven(finished, talk.loads, talk.failure)


def repetition_lines(lines: list[str], loads: list[LoadResult]) -> list[str]:
    """The server's lines with each repetition's own taken from the load generator: its time,
    replies and digest, and its figures in extra beside the server's counts. The ready line and
    any line the load generator has no repetition for stay as printed (the judge reads them)."""
    merged = list(lines)
    for index, load in enumerate(loads):
        position = index + 1
        if position >= len(merged) or not load.ok:
            break
        try:
            record = json.loads(merged[position])
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        extra = record.get("extra") if isinstance(record.get("extra"), dict) else {}
        record.update(ns=load.ns, items=load.replies, checksum=load.digest, extra={**extra, **load.as_extra()})
        merged[position] = json.dumps(record, separators=(",", ":"))
    return merged
