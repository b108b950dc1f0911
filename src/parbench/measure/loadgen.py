"""echo-server's load generator (loadgen.c) and its native reference server (echo_reference.c),
run from the harness's side: never inside a server's process tree or cgroup."""
from __future__ import annotations

import json
import select
import subprocess
from dataclasses import dataclass
from pathlib import Path

from parbench.measure.native import compiled

LOADGEN_SOURCE = Path(__file__).with_name("loadgen.c")
REFERENCE_SOURCE = Path(__file__).with_name("echo_reference.c")
# Beyond the repetition's own timeout, before the harness stops waiting for the program itself.
GRACE_S = 5
# Probe requests a repetition sends in two parts after its timed region (loadgen.c): a server
# that replied before it read a request whole is caught by them.
PROBES = 2          # and then the spec's test vector, on the same connection
# 50 ms: a server that replies at once still has to be scheduled within it, on a busy machine too.
PROBE_DELAY_MS = 50


class LoadgenMissing(RuntimeError):
    """No C compiler: the harness has no load generator, so no echo-server case can run."""


@dataclass(frozen=True)
class Load:
    """One repetition's load: what the load generator is told."""
    connections: int
    requests: int
    length: int
    seed: int


@dataclass(frozen=True)
class LoadResult:
    """What the load generator printed for one repetition (loadgen.c's JSON line)."""
    ns: int
    replies: int
    expected_replies: int
    failures: int
    failure: str | None
    failure_kind: str | None
    p50_ns: int
    p99_ns: int
    max_ns: int
    digest: str
    seed: int
    probe_replies: int
    nofile_limit: int

    @property
    def ok(self) -> bool:
        return self.failures == 0 and self.replies == self.expected_replies

    def as_extra(self) -> dict:
        """The repetition's figures as the harness records them beside the server's own line."""
        return {"p50_ns": self.p50_ns, "p99_ns": self.p99_ns, "max_ns": self.max_ns,
                "replies_per_s": round(self.replies * 1e9 / self.ns, 1) if self.ns > 0 else 0.0,
                "loadgen_replies": self.replies, "probe_replies": self.probe_replies,
                "nofile_limit": self.nofile_limit}


def loadgen_binary() -> str:
    program = compiled(LOADGEN_SOURCE, "parbench-loadgen", ("-Wall",))
    if program is None:
        raise LoadgenMissing("echo-server needs a C compiler (cc, gcc or clang) to build its load generator: "
                             "apt-get install -y gcc")
    return program


def reference_binary() -> str:
    program = compiled(REFERENCE_SOURCE, "parbench-echo-reference", ("-Wall",))
    if program is None:
        raise LoadgenMissing("echo-server's reference server does not build here (no C compiler?)")
    return program


def run_load(port: int, load: Load, timeout_s: float, probes: int = PROBES,
             probe_delay_ms: int = PROBE_DELAY_MS) -> LoadResult:
    """One repetition against 127.0.0.1:port; a load generator that itself misbehaves is a
    LoadResult with its failure, never an exception."""
    argv = [loadgen_binary(), "--port", str(port), "--connections", str(load.connections),
            "--requests", str(load.requests), "--len", str(load.length), "--seed", str(load.seed),
            "--timeout-ms", str(max(1, int(timeout_s * 1000))), "--probes", str(probes),
            "--probe-delay-ms", str(probe_delay_ms)]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s + GRACE_S,
                              stdin=subprocess.DEVNULL)
        return parse_result(done.stdout, done.stderr, load)
    except subprocess.TimeoutExpired:
        return _failed(load, "the load generator itself did not end in time", "timeout")


def parse_result(stdout: str, stderr: str, load: Load) -> LoadResult:
    try:
        found = json.loads(stdout.strip().splitlines()[-1])
        return LoadResult(int(found["ns"]), int(found["replies"]), int(found["expected_replies"]),
                          int(found["failures"]), found["failure"], found.get("failure_kind"), int(found["p50_ns"]),
                          int(found["p99_ns"]), int(found["max_ns"]), str(found["digest"]), int(found["seed"]),
                          int(found["probe_replies"]), int(found["nofile_limit"]))
    except (IndexError, KeyError, TypeError, ValueError):
        last = (stderr.strip().splitlines() or ["no output"])[-1][:300]
        return _failed(load, f"the load generator printed no result: {last}", "loadgen")


def _failed(load: Load, reason: str, kind: str) -> LoadResult:
    return LoadResult(0, 0, load.connections * load.requests, 1, reason, kind, -1, -1, -1, "", load.seed, 0, 0)


class ReferenceServer:
    """The native reference server, started with a wait, serving until closed (the ceiling's
    server, and the tests' known-good one)."""

    def __init__(self, wait_us: int, start_timeout_s: float = 10):
        self.process = subprocess.Popen([reference_binary(), "--wait-us", str(int(wait_us))], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        ready = _line_within(self.process, start_timeout_s)
        try:
            self.port = int(json.loads(ready)["port"])
        except (TypeError, ValueError, KeyError):
            self.close()
            raise RuntimeError(f"the reference server printed no ready line: {ready!r}") from None
        self._repetition = 0

    def served(self, timeout_s: float = 10) -> dict:
        """Its line for the repetition just finished (what it served since the last)."""
        self.process.stdin.write(f"{self._repetition}\n")
        self.process.stdin.flush()
        self._repetition += 1
        return json.loads(_line_within(self.process, timeout_s) or "{}")

    def close(self) -> int | None:
        """End of file on its stdin; its exit status (None if it had to be killed)."""
        try:
            self.process.stdin.close()
        except OSError:
            pass
        try:
            return self.process.wait(5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None

    def __enter__(self) -> "ReferenceServer":
        return self

    def __exit__(self, *_) -> None:
        self.close()


def _line_within(process: subprocess.Popen, timeout_s: float) -> str | None:
    if not select.select([process.stdout], [], [], timeout_s)[0]:
        return None
    return process.stdout.readline()

