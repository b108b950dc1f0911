"""The drift sentinel: a fixed reference (sentinel.c, one CPU-bound and one memory-bound loop)
measured at the start of a sitting, between its tables and at its end, with the machine's steal
time and the load of everything else, so a report can say how much the machine drifted under
it and mark the tables measured while it was off (issue: one sitting, its noise shown)."""
from __future__ import annotations

import subprocess
from dataclasses import asdict, dataclass
from pathlib import Path

from parbench.measure.native import compiled

SOURCE = Path(__file__).with_name("sentinel.c")


@dataclass
class Reading:
    position: int            # 0 at the start, then one after each table
    after: str               # the table just measured ("" at the start)
    cpu_ns: int
    memory_ns: int
    steal_share: float       # of the machine's time since the last reading, stolen by the host
    busy_share: float        # of the machine's time since the last reading, busy (anyone)

    def as_dict(self) -> dict:
        return asdict(self)


def binary() -> str | None:
    return compiled(SOURCE, "parbench-sentinel", ())


def _cpu_times() -> list[int] | None:
    """The machine's jiffies from /proc/stat's first line (user … steal)."""
    try:
        with open("/proc/stat") as f:
            return [int(v) for v in f.readline().split()[1:9]]
    except (OSError, ValueError):
        return None


class Sentinel:
    """Takes readings through a sitting; each one costs about a fifth of a second (five passes of each loop)."""

    def __init__(self):
        self.readings: list[Reading] = []
        self._last = _cpu_times()

    def read(self, after: str = "") -> Reading | None:
        program = binary()
        if program is None:
            return None
        try:
            done = subprocess.run([program], capture_output=True, text=True, timeout=60)
            cpu_ns, memory_ns, _ = done.stdout.split()
        except (OSError, ValueError, subprocess.TimeoutExpired):
            return None
        now = _cpu_times()
        steal = busy = 0.0
        if now and self._last:
            delta = [b - a for a, b in zip(self._last, now)]
            total = sum(delta) or 1
            idle = delta[3] + delta[4]
            steal, busy = delta[7] / total, (total - idle) / total
        self._last = now
        reading = Reading(len(self.readings), after, int(cpu_ns), int(memory_ns), steal, busy)
        self.readings.append(reading)
        return reading
