"""The machine's own ceiling for a table, measured by the harness with one C reference program
(machine_ceiling.c) the same way for every runtime, so "× machine" compares each case with this
machine rather than with its own runtime's copy (which a fork or a JIT can make slower or faster)."""
from __future__ import annotations

import subprocess
from pathlib import Path

from parbench.measure.native import compiled

SOURCE = Path(__file__).with_name("machine_ceiling.c")


def binary() -> str | None:
    return compiled(SOURCE, "parbench-machine-ceiling", ("-pthread",))


def measure(mode: str, amount: int) -> int | None:
    """The best of five timings of `mode` (copy BYTES | handoff N), in ns; None if it cannot run."""
    program = binary()
    if program is None:
        return None
    try:
        done = subprocess.run([program, mode, str(int(amount))], capture_output=True, text=True, timeout=120)
        return int(done.stdout.strip()) if done.returncode == 0 else None
    except (OSError, ValueError, subprocess.TimeoutExpired):
        return None
