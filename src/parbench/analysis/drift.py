"""How far the machine drifted under one sitting: the sentinel's readings (sentinel.py) as the
spread of its CPU-bound and memory-bound times, and the tables measured while a reading beside
them was off the sitting's median by more than 5 %."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

OFF_SHARE = 0.05


@dataclass
class Drift:
    readings: int
    cpu_spread: float            # (max − min) / median of the CPU-bound loop's time
    memory_spread: float
    steal_max: float             # the largest share of time stolen by the host between two readings
    busy_max: float              # the largest share of the machine busy between two readings
    off_tables: dict[str, float] = field(default_factory=dict)   # table → how far off (share)

    def as_dict(self) -> dict:
        return asdict(self)

    @property
    def spread(self) -> float:
        return max(self.cpu_spread, self.memory_spread)


def _off(value: float, median: float) -> float:
    return abs(value - median) / median if median else 0.0


def drift(readings: list[dict]) -> Drift | None:
    """The sitting's drift from its stored sentinel readings (in the order they were taken)."""
    readings = sorted(readings, key=lambda r: r["position"])
    if len(readings) < 2:
        return None
    cpu = np.array([r["cpu_ns"] for r in readings], dtype=float)
    memory = np.array([r["memory_ns"] for r in readings], dtype=float)
    cpu_median, memory_median = float(np.median(cpu)), float(np.median(memory))
    off_each = [max(_off(c, cpu_median), _off(m, memory_median)) for c, m in zip(cpu, memory)]
    off_tables = {}
    for before, (after, reading) in zip(off_each, zip(off_each[1:], readings[1:])):
        worst = max(before, after)
        if reading["after"] and worst > OFF_SHARE:
            off_tables[reading["after"]] = worst
    return Drift(len(readings), float((cpu.max() - cpu.min()) / cpu_median) if cpu_median else 0.0,
                 float((memory.max() - memory.min()) / memory_median) if memory_median else 0.0,
                 max(r["steal_share"] for r in readings), max(r["busy_share"] for r in readings[1:]), off_tables)
