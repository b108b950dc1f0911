"""The harness's own small C programs (the drift sentinel, the machine's ceilings), each compiled
once into the cache beside the inputs and rebuilt when its source is newer."""
from __future__ import annotations

import functools
import os
import shutil
import subprocess
from pathlib import Path

from parbench.project import cache_root


@functools.lru_cache(maxsize=None)
def compiled(source: Path, name: str, flags: tuple[str, ...] = ()) -> str | None:
    """The binary built from `source` (None without a C compiler or when it does not build)."""
    target = cache_root().parent / "bin" / name
    if target.exists() and target.stat().st_mtime >= source.stat().st_mtime:
        return str(target)
    compiler = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if compiler is None:
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f"{target.name}.{os.getpid()}")
    if subprocess.run([compiler, "-O2", *flags, "-o", str(tmp), str(source)], capture_output=True).returncode != 0:
        return None
    os.replace(tmp, target)
    return str(target)
