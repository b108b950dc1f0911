"""The evidence every workload's lines owe beyond their checksum (docs/protocol.md, protocol 2),
judged the same way for every workload: workers whose busy intervals overlapped, and time
between two lines that the implementation accounts for. Workload-specific proofs (probes,
live units, switches) live in each workload's package."""
from __future__ import annotations

from typing import Any

from parbench.protocol import accounted_ns

UNACCOUNTED_SHARE = 0.10          # flagged above 10 % of the gap between two lines …
UNACCOUNTED_FLOOR_NS = 5_000_000  # … plus 5 ms (scheduling and pipe latency stay below it)


def busy_problem(extra: dict[str, Any], ns: int, workers: int | None) -> str | None:
    """Why a parallel model's `extra.busy` cannot be read as its workers' intervals, or None."""
    busy = extra.get("busy")
    if not isinstance(busy, list) or not busy:
        return ("lacks extra.busy: every model that takes --workers reports each worker's busy "
                "interval(s) (protocol 2)")
    slack = max(ns // 20, 1_000_000)      # clocks read a little apart on either side of the region
    for interval in busy:
        if not (isinstance(interval, list) and len(interval) == 3
                and all(isinstance(v, int) and not isinstance(v, bool) for v in interval)):
            return f"extra.busy holds {str(interval)[:60]!r}, not [worker, start_ns, end_ns]"
        worker, start, end = interval
        if workers is not None and not 0 <= worker < max(workers, 1):
            return f"extra.busy names worker {worker}, but the case has {workers} worker(s)"
        if not -slack <= start <= end <= ns + slack:
            return f"extra.busy interval {interval} lies outside the repetition's {ns} ns"
    return None


def overlap_share(busy: list[list[int]]) -> float | None:
    """Of the time at least one worker was busy, the share during which two or more were."""
    events = sorted([(start, 1) for _, start, end in busy if end > start] +
                    [(end, -1) for _, start, end in busy if end > start])
    if not events:
        return None
    any_busy = several_busy = 0
    active, last = 0, events[0][0]
    for time, change in events:
        if active >= 1:
            any_busy += time - last
        if active >= 2:
            several_busy += time - last
        active, last = active + change, time
    return several_busy / any_busy if any_busy else None


def unaccounted_ns(line: dict[str, Any]) -> int | None:
    """The time between the line before and this one that no phase of it accounts for."""
    gap = (line.get("extra") or {}).get("gap_ns")
    return None if not isinstance(gap, int) else gap - accounted_ns(line)


def unaccounted_too_long(line: dict[str, Any]) -> bool:
    missing, gap = unaccounted_ns(line), (line.get("extra") or {}).get("gap_ns")
    return missing is not None and missing > UNACCOUNTED_SHARE * gap + UNACCOUNTED_FLOOR_NS
