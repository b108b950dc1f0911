"""Human units for durations, rates and sizes, the same in every report format."""
from __future__ import annotations


def format_duration(ns: float) -> str:
    ns = float(ns)
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if abs(ns) >= scale:
            return f"{ns / scale:.3g} {unit}" if abs(ns) < 100 * scale else f"{ns / scale:.0f} {unit}"
    return f"{ns:.0f} ns"


def format_per_item(ns: float) -> str:
    """A cost per item, which can be a fraction of a nanosecond (a byte of a table lookup)."""
    return f"{ns:.2g} ns" if abs(ns) < 10 else format_duration(ns)


def format_rate(per_second: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("K", 1e3)):
        if per_second >= scale:
            return f"{per_second / scale:.3g} {unit}"
    return f"{per_second:.3g}"


def format_bytes(count: float) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if abs(count) >= scale:
            return f"{count / scale:.3g} {unit}"
    return f"{count:.0f} B"
