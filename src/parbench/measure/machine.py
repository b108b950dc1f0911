"""What machine and software a run was measured on, stored with every run (pyperf's lesson)."""
from __future__ import annotations

import os
import platform
import socket
import subprocess
from pathlib import Path

from parbench import __version__
from parbench.project import ROOT


def _read(path: str) -> str:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return ""


def _cpu_model() -> str:
    for line in _read("/proc/cpuinfo").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def git_commit() -> str:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10)
        dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, timeout=10).stdout.strip()
        return out.stdout.strip() + ("-dirty" if dirty else "") if out.returncode == 0 else "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def machine() -> dict:
    memory_kb = next((int(l.split()[1]) for l in _read("/proc/meminfo").splitlines()
                      if l.startswith("MemTotal")), 0)
    return {
        "hostname": socket.gethostname(),
        "cpu": _cpu_model(),
        "logical_cpus": os.cpu_count(),
        "usable_cpus": len(os.sched_getaffinity(0)),
        "memory_gib": round(memory_kb / 2**20, 1),
        "os": _read("/etc/os-release").split("PRETTY_NAME=")[-1].split("\n")[0].strip('"'),
        "os_kernel": platform.release(),
        "governor": _read("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor") or "n/a",
        "load_average": list(os.getloadavg()),
        "aslr": _read("/proc/sys/kernel/randomize_va_space"),
        "python": platform.python_version(),
        "parbench": __version__,
        "git_commit": git_commit(),
    }
