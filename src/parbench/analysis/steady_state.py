"""Whether a process reached a steady state, and how (docs/methodology.md).

The series is the launcher's own (each repetition from its variant to its line, less the longest
wait for a core; measure/launcher.c), never the process's word. A run of repetitions is *steady*
when all but a few lie within ±tolerance of their median: none of 3 or 4, one of 5 to 8, one in
four beyond, so that one garbage collection or one preemption is an outlier, not a new state
(`steady`). The launcher stops a process's warm-up once the last timed + 1 repetitions, or the
last 2 × (timed + 1) − 1, are steady (launcher.c's `steady` is this test, in C). Afterwards this
module classifies the whole series, in the four classes of Barrett et al., "Virtual Machine
Warmup Blows Hot and Cold" (OOPSLA 2017): the steady state is the longest steady run of
repetitions that ends the series (at least a window long), and what came before it is compared
with it, as their changepoint analysis compares segments:
- `flat`: the repetitions before it are, as a whole, at its level, and the first one too;
- `warm-up`: the first repetition, or the repetitions before as a whole (their median), were
  slower than it (a JIT compiling);
- `slowdown`: the repetitions before were, as a whole, faster than it;
- `no steady state`: no steady run ends the series;
- `one-shot`: a process that runs a single repetition by design (`one_repetition_per_process`),
  whose figure is its first repetition: cold, and not classed further.
A case is judged from its processes (`case_class`): every one steady and at the same level
(their steady medians no further apart than their spread and the tolerance) is a steady case,
unmarked whatever mix of flat, warm-up and slowdown it holds; processes steady at different
levels are `inconsistent`; any process without a steady state marks the case.
"""
from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import dataclass

FLAT, WARMUP, SLOWDOWN, NONE, ONE_SHOT = "flat", "warm-up", "slowdown", "no steady state", "one-shot"
CLASSES = (FLAT, WARMUP, SLOWDOWN, NONE, ONE_SHOT)
STEADY_CLASSES = (FLAT, WARMUP, SLOWDOWN)
TOLERANCE = 0.10               # the window's default: ±10 % of its median (docs/methodology.md)
INCONSISTENT = "inconsistent"


def window(timed: int) -> int:
    """The repetitions the steady test looks at first: the timed ones and the one before (at least 3)."""
    return max(3, timed + 1)


def long_window(timed: int) -> int:
    """The longer window the launcher also tries, where one outlier is allowed: 2 × window − 1."""
    return 2 * window(timed) - 1


def outliers_allowed(count: int) -> int:
    """How many of `count` repetitions may lie outside the band and the run still be steady: none
    of 3 or 4 (too few to tell an outlier from a change), one of 5 to 8, one in four beyond."""
    return 0 if count < 5 else max(1, (count - 1) // 4)


def _outside(values: list[int], tolerance: float) -> int:
    middle = statistics.median(values)
    return sum(1 for v in values if abs(v - middle) > tolerance * middle)


def steady(values: list[int], tolerance: float) -> bool:
    """All but outliers_allowed(len) of the values within ±tolerance of their median."""
    return len(values) >= 3 and _outside(values, tolerance) <= outliers_allowed(len(values))


def settled(values: list[int], tolerance: float) -> bool:
    """Every value within ±tolerance of the values' median."""
    return _outside(values, tolerance) == 0


def stops(series: list[int], timed: int, tolerance: float) -> bool:
    """The launcher's rule after each repetition (launcher.c, `steady`): the last window is steady,
    or the last long window is."""
    return ((len(series) >= window(timed) and steady(series[-window(timed):], tolerance))
            or (len(series) >= long_window(timed) and steady(series[-long_window(timed):], tolerance)))


@dataclass(frozen=True)
class Steadiness:
    """One process's judgement: its class, and where it is steady, the level (the median of its
    steady run) and the spread (the largest distance of a repetition within the band from it)."""
    cls: str
    level: float | None = None
    spread: float | None = None


def steady_run(series: list[int], timed: int, tolerance: float) -> int:
    """The length of the longest steady run of repetitions that ends the series, 0 where none of
    at least a window's length does."""
    for length in range(len(series), window(timed) - 1, -1):
        if steady(series[-length:], tolerance):
            return length
    return 0


def judge(series: list[int], timed: int, tolerance: float, verdict: str = "") -> Steadiness:
    """A process from its repetitions' times in order (`timed`: how many at the end are timed).
    `verdict` is the launcher's: `fixed` with fewer repetitions than a window is a process that ran
    one or two by design (a workload's `one_repetition_per_process`): `one-shot`, its first
    repetition is its figure. A `budget` verdict does not decide: the whole series does, and a
    steady run the launcher's windows missed (two outliers in its last five) counts.

    The repetitions before the steady run are judged by their median, as a segment, and the first
    one by itself: one lucky or unlucky repetition among them is noise, not a change of state."""
    if verdict == "fixed" and len(series) < window(timed):
        return Steadiness(ONE_SHOT)
    length = steady_run(series, timed, tolerance)
    if not length:
        return Steadiness(NONE)
    run = series[-length:]
    level = statistics.median(run)
    spread = max(abs(v - level) for v in run if abs(v - level) <= tolerance * level)
    before = series[:-length]
    if before and statistics.median(before) < (1 - tolerance) * level:
        return Steadiness(SLOWDOWN, level, spread)
    if series[0] > (1 + tolerance) * level or (before and statistics.median(before) > (1 + tolerance) * level):
        return Steadiness(WARMUP, level, spread)
    return Steadiness(FLAT, level, spread)


def classify(series: list[int], timed: int, tolerance: float, verdict: str = "") -> str:
    """The class alone (judge)."""
    return judge(series, timed, tolerance, verdict).cls


def apart(levels: list[tuple[float, float]], tolerance: float) -> float | None:
    """How far apart, as a share of the lower, the lowest and the highest steady levels are where
    they differ beyond their noise (their spreads added, and at least the tolerance), else None."""
    if len(levels) < 2:
        return None
    (low, low_spread), (high, high_spread) = min(levels), max(levels)
    if high - low > max(low_spread + high_spread, tolerance * low):
        return (high - low) / low
    return None


def case_class(classes: list[str], levels: list[tuple[float, float] | None] | None = None,
               tolerance: float = TOLERANCE) -> str:
    """A case's class from its processes' classes and, where known, their (level, spread), in
    words: the one class they share ("warm-up"); a steady mix ("steady: 2 warm-up, 1 flat");
    processes steady at different levels ("inconsistent: levels 31 % apart (2 warm-up, 1 flat)");
    or, where some never settled, "no steady state" (all of them) or "no steady state in 1 of 3"."""
    known = [c for c in classes if c]
    counts = Counter(known)
    if not counts:
        return ""
    unsettled = counts.get(NONE, 0)
    if unsettled:
        return NONE if unsettled == len(known) else f"{NONE} in {unsettled} of {len(known)}"
    mix = ", ".join(f"{n} {c}" for c, n in counts.most_common())
    spread = apart([lv for lv in (levels or []) if lv is not None], tolerance)
    if spread is not None:
        return f"{INCONSISTENT}: levels {100 * spread:.0f} % apart ({mix})"
    if len(counts) == 1:
        return next(iter(counts))
    return f"steady: {mix}"


def is_marked(case_class_text: str) -> bool:
    """Whether a case's class keeps its figure from an unmarked star: a process that never
    settled, or processes that settled at different levels."""
    return case_class_text.startswith((INCONSISTENT, NONE))


def short_text(case_class_text: str) -> str:
    """The class in a few words, for a summary cell: what the ⚠ is for, or the steady class."""
    if case_class_text.startswith(INCONSISTENT):
        return "levels differ"
    if case_class_text.startswith(NONE):
        return "not settled" + case_class_text[len(NONE):]
    return case_class_text.split(":")[0]
