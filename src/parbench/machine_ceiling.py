"""The machine's own ceiling for a table, measured by the harness with one C reference program
(machine_ceiling.c) the same way for every runtime, so "× machine" compares each case with this
machine rather than with its own runtime's copy (which a fork or a JIT can make slower or faster)."""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

from parbench.inputs import cache_root

SOURCE = Path(__file__).with_name("machine_ceiling.c")


@functools.lru_cache(maxsize=1)
def binary() -> str | None:
    """The compiled reference program, built once into the cache (None without a C compiler)."""
    target = cache_root().parent / "bin" / "parbench-machine-ceiling"
    if target.exists() and target.stat().st_mtime >= SOURCE.stat().st_mtime:
        return str(target)
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.{os.getpid()}")
    built = subprocess.run([compiler, "-O2", "-pthread", "-o", str(tmp), str(SOURCE)], capture_output=True)
    if built.returncode != 0:
        return None
    os.replace(tmp, target)
    return str(target)


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
