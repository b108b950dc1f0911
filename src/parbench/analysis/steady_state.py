"""Whether a process reached a steady state, and how (docs/methodology.md).

The launcher stops a process's warm-up once its last timed + 1 repetitions lie within ±tolerance
of their median (launcher.c, `steady`); this module classifies the whole series afterwards, in
the four classes of Barrett et al., "Virtual Machine Warmup Blows Hot and Cold" (OOPSLA 2017),
with that window standing in for their changepoint analysis:
- `flat`: every repetition, the first included, lies within the tolerance of the steady median;
- `warm-up`: the first repetition, or the repetitions before the steady window as a whole (their
  median), were slower than it (a JIT compiling);
- `slowdown`: the repetitions before the window were, as a whole, faster than it (the steady
  state is slower than an earlier one);
- `no steady state`: the last window never settled within the budget;
- `one-shot`: a process that runs a single repetition by design (`one_repetition_per_process`),
  whose figure is its first repetition: cold, and not classed further.
A case is consistent when each of its processes has the same class.
"""
from __future__ import annotations

import statistics
from collections import Counter

FLAT, WARMUP, SLOWDOWN, NONE, ONE_SHOT = "flat", "warm-up", "slowdown", "no steady state", "one-shot"
CLASSES = (FLAT, WARMUP, SLOWDOWN, NONE, ONE_SHOT)
TOLERANCE = 0.10               # the window's default: ±10 % of its median (docs/methodology.md)
MARKED = (SLOWDOWN, NONE)       # a case of these, or an inconsistent one, is never starred unmarked


def window(timed: int) -> int:
    """The repetitions the steady test looks at: the timed ones and the one before (at least 3)."""
    return max(3, timed + 1)


def settled(values: list[int], tolerance: float) -> bool:
    """Every value within ±tolerance of the values' median."""
    middle = statistics.median(values)
    return all(abs(v - middle) <= tolerance * middle for v in values)


def classify(series: list[int], timed: int, tolerance: float, verdict: str = "") -> str:
    """The class of one process from its repetitions' times in order (`timed`: how many at the end
    are timed). `verdict` is the launcher's: `budget` means it never saw the window settle, and
    `fixed` with fewer repetitions than a window is a process that ran one or two by design
    (a workload's `one_repetition_per_process`): `one-shot`, its first repetition is its figure.

    The repetitions before the window are judged by their median, as a segment, and the first one
    by itself: one lucky or unlucky repetition among them is noise, not a change of state."""
    size = window(timed)
    if verdict == "fixed" and len(series) < size:
        return ONE_SHOT
    if verdict == "budget" or len(series) < size or not settled(series[-size:], tolerance):
        return NONE
    steady = statistics.median(series[-timed:])
    before = series[:-size]
    if before and statistics.median(before) < (1 - tolerance) * steady:
        return SLOWDOWN
    if series[0] > (1 + tolerance) * steady or (before and statistics.median(before) > (1 + tolerance) * steady):
        return WARMUP
    return FLAT


def case_class(classes: list[str]) -> str:
    """A case's class from its processes': the one class they share, else `inconsistent` with
    the count of each ("inconsistent: 2 warm-up, 1 flat")."""
    counts = Counter(c for c in classes if c)
    if not counts:
        return ""
    if len(counts) == 1:
        return next(iter(counts))
    return "inconsistent: " + ", ".join(f"{n} {c}" for c, n in counts.most_common())


def is_marked(case_class_text: str) -> bool:
    """Whether a case's class keeps its figure from an unmarked star: no steady state, a
    slowdown, or processes that disagree."""
    return case_class_text.startswith("inconsistent") or case_class_text in MARKED
