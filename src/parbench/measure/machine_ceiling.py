"""The machine's own ceiling for a table, measured by the harness with one C reference program
(machine_ceiling.c) the same way for every runtime, so "× machine" compares each case with this
machine rather than with its own runtime's copy (which a fork or a JIT can make slower or faster).
echo-server's ceiling is the load generator against the C reference server (measure/loadgen.py)."""
from __future__ import annotations

import random
import subprocess
from pathlib import Path

from parbench.measure import loadgen
from parbench.measure.native import compiled

SOURCE = Path(__file__).with_name("machine_ceiling.c")
ECHO_TIMEOUT_S = 120


def binary() -> str | None:
    return compiled(SOURCE, "parbench-machine-ceiling", ("-pthread",))


def measure(mode: str, amount) -> int | None:
    """The best of five timings of `mode` (copy BYTES | handoff N), in ns; for `echo` (amount:
    connections, requests, len, wait_us) the best of three repetitions of the load generator
    against the reference server. None if it cannot run."""
    if mode == "echo":
        return _echo(*amount)
    program = binary()
    if program is None:
        return None
    try:
        done = subprocess.run([program, mode, str(int(amount))], capture_output=True, text=True, timeout=120)
        return int(done.stdout.strip()) if done.returncode == 0 else None
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None


def _echo(connections: int, requests: int, length: int, wait_us: int, repetitions: int = 3) -> int | None:
    try:
        with loadgen.ReferenceServer(wait_us) as server:
            rng = random.SystemRandom()
            results = [loadgen.run_load(server.port, loadgen.Load(connections, requests, length,
                                                                  rng.randrange(2 ** 63)), ECHO_TIMEOUT_S)
                       for _ in range(repetitions)]
    except (OSError, RuntimeError):
        return None
    times = [r.ns for r in results if r.ok]
    return min(times) if len(times) == repetitions else None
