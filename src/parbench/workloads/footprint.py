"""What a case's input and oracle will take of the disk and of memory, checked before either is
built: a size that cannot fit is refused with the figure, before anything is stored."""
from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from parbench.project import cache_root
from parbench.units import format_bytes


def free_disk_bytes(folder: Path) -> int:
    """Free space of the file system that holds `folder` (or its nearest existing parent)."""
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return shutil.disk_usage(folder).free


def available_memory_bytes() -> int | None:
    """MemAvailable of /proc/meminfo (what can be had without swapping); None where unknown."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def problem(workload, params: dict[str, Any]) -> str | None:
    """Why this case's input or oracle cannot fit on this machine, or None. A workload says
    what it needs with `footprint(params) -> (disk_bytes, memory_bytes)` (0 for what is cached)."""
    needs = workload.hooks.footprint
    if needs is None:
        return None
    disk, memory = needs(params)
    free = free_disk_bytes(cache_root()) if disk else 0
    if disk > free:
        return (f"{workload.name} {_shown(params)}: its input needs {format_bytes(disk)} of disk, "
                f"{cache_root()} has {format_bytes(free)} free")
    available = available_memory_bytes() if memory else None
    if available is not None and memory > available:
        return (f"{workload.name} {_shown(params)}: its reference answer needs {format_bytes(memory)} of memory, "
                f"this machine has {format_bytes(available)} available")
    return None


def _shown(params: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in params.items())


def cached(path: Path) -> bool:
    return os.path.exists(path)
