"""Both sides of docs/protocol.md: the command line the harness sends, the JSON lines it reads,
and the checks every process's lines must pass before any of its numbers is believed."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from parbench.escaping import is_valid_unicode

EXIT_OK, EXIT_BAD_ARGUMENTS, EXIT_LIMIT = 0, 2, 3
# A repetition whose ns is under this share of the time between its line and the one before
# (when that gap is long enough to mean something) did not time what it did: 1 µs for 20 ms.
MIN_SHARE_OF_GAP = 1 / 1000
GAP_WORTH_CHECKING_NS = 10_000_000


def command_line(run_script: str, workload: str, model: str, params: dict[str, Any],
                 workers: int | None) -> list[str]:
    """The process's arguments. Its variants are not among them, nor how many repetitions it
    runs: the launcher writes each variant to its stdin when that repetition starts and closes
    stdin when the harness has what it needs (protocols 3 and 4)."""
    argv = [run_script, workload, "--model", model]
    for name, value in params.items():
        argv += [f"--{name.replace('_', '-')}", str(value)]
    if workers is not None:
        argv += ["--workers", str(workers)]
    return argv


def feed_of(variants: list[int] | None, most: int) -> list[int]:
    """What the launcher may write to the process's stdin, one per repetition: the variants, or
    0 for a workload without them; it writes only as many as its policy asks for."""
    return list(variants) if variants else [0] * most


@dataclass
class Reply:
    """What one process printed: its repetitions, or the limit it hit, or why it is unreadable."""
    repetitions: list[dict[str, Any]] = field(default_factory=list)   # the timed ones
    arrival_ns: list[int] = field(default_factory=list)     # when each repetition's line arrived
    # The repetitions before the first timed one (protocol 4: the launcher's warm-up), checked
    # like the timed ones and never timed.
    warmups: list[dict[str, Any]] = field(default_factory=list)
    warmup_arrival_ns: list[int] = field(default_factory=list)
    ready: dict[str, Any] | None = None                         # protocol 3: the first line
    ready_arrival_ns: int | None = None
    limit: str | None = None
    malformed: str | None = None


REQUIRED = {"rep": int, "ns": int, "items": int, "checksum": str}
START_MODES = ("cold", "warm")
READY_VALUES = START_MODES + ("none",)
# The phases an implementation spends between two of its lines besides `ns` (protocol 2); with
# every baseline_*_ns they account for the gap the launcher sees between the two lines.
PHASES = ("checksum_ns", "ceiling_ns", "ceiling_setup_ns", "prepare_ns", "cleanup_ns")


# The fields of a repetition's extra that the harness writes from its own observations (the
# launcher's clock and threads, the machine's load, the warm-up): an implementation's line that
# sets one has it dropped, with a note, so that no benchmark can forge what vouches for it.
HARNESS_FIELDS = frozenset({
    "gap_ns", "waited_ns", "measured_cpu_ns", "measured_cores", "new_thread_cpu_ns", "leftover_thread_cpu_ns", "new_threads",
    "peak_tasks", "tasks_made", "tasks_kept",
    "startup_ns", "warmup_ns", "steal_ns", "others_cores", "pool_start_ns",
    "steady_class", "first_ns", "warmup_reps", "steady_search", "ns_class",
    "steady_level_ns", "steady_spread_ns"})


def drop_harness_fields(lines: list[dict[str, Any]]) -> list[str]:
    """Removes every harness-owned field from the lines' extra; returns the names found, sorted."""
    found = set()
    for line in lines:
        extra = line.get("extra")
        if isinstance(extra, dict):
            for name in HARNESS_FIELDS & extra.keys():
                found.add(name)
                del extra[name]
    return sorted(found)


# Bounds on what one line may hold: the protocol's lines are flat objects of short fields (extra
# holds one level of detail), numbers fit int64 (SQLite's INTEGER, PostgreSQL's bigint).
MAX_LINE_CHARS = 1 << 20
MAX_DEPTH = 8
INT64 = (-(1 << 63), (1 << 63) - 1)


class Unreadable(ValueError):
    """A line, or a `--list`, that is JSON the harness will not take (and why)."""


def _no_constant(name: str):
    raise Unreadable(f"{name} is not a number JSON has (RFC 8259)")


def read_json(text: str, max_depth: int = MAX_DEPTH) -> Any:
    """JSON from a process, bounded: no NaN/Infinity, integers within int64, no lone surrogate,
    nesting at most `max_depth` deep; anything else raises Unreadable with the reason."""
    if text.count("[") + text.count("{") > max_depth and _opening_depth(text) > max_depth:
        raise Unreadable(f"nested deeper than {max_depth} levels")
    try:
        value = json.loads(text, parse_constant=_no_constant)
    except RecursionError:
        raise Unreadable(f"nested deeper than {max_depth} levels") from None
    except Unreadable:
        raise
    except ValueError as error:
        raise Unreadable(f"not JSON ({error})") from None
    problem = _out_of_bounds(value)
    if problem:
        raise Unreadable(problem)
    return value


def _opening_depth(text: str) -> int:
    """An upper bound of the nesting, counted without parsing (brackets inside strings count too:
    a false alarm needs a string of brackets longer than the bound, and costs only a refusal)."""
    depth = deepest = 0
    for char in text:
        if char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def _out_of_bounds(value: Any) -> str | None:
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, bool) or item is None:
            continue
        if isinstance(item, int) and not INT64[0] <= item <= INT64[1]:
            return f"the integer {str(item)[:30]}… is outside int64"
        if isinstance(item, float) and not math.isfinite(item):
            return f"{item} is not a finite number"
        if isinstance(item, str) and not is_valid_unicode(item):
            return "a string holds a lone surrogate (not valid Unicode)"
        if isinstance(item, dict):
            if not all(map(is_valid_unicode, item)):
                return "a key holds a lone surrogate (not valid Unicode)"
            pending += item.values()
        elif isinstance(item, list):
            pending += item
    return None


def parse_stdout(lines: list[str] | str, times: list[int] | None = None, first_timed: int = 0,
                 repeat: int | None = None) -> Reply:
    """Every line is read even after a bad one, so that a limit line printed after some stray
    runtime output (a VM's own warning on stdout, say) still says what stopped the work. Every
    repetition prints `{"rep":j,…}` with j = 0, 1, 2 … in order (protocol 4); the launcher says
    which is the first timed one (`first_timed`): those before it are the warm-up. With `repeat`,
    a timed repetition beyond it ends the reading: the case is bad output."""
    if isinstance(lines, str):
        lines = lines.splitlines()
    times = times or [0] * len(lines)
    reply = Reply()
    seen = 0
    for number, (line, arrived) in enumerate(zip(lines, times), 1):
        if len(line) > MAX_LINE_CHARS:
            reply.malformed = reply.malformed or f"stdout line {number} is longer than {MAX_LINE_CHARS:,} characters"
            continue
        try:
            record = read_json(line)
        except Unreadable as why:
            reply.malformed = reply.malformed or f"stdout line {number} is {_as_reason(why)}: {_shown(line)}"
            continue
        if not isinstance(record, dict):
            reply.malformed = reply.malformed or f"stdout line {number} is not a JSON object: {_shown(line)}"
            continue
        if "ready" in record and "rep" not in record:
            problem = _ready_problem(record, reply)
            if problem:
                reply.malformed = reply.malformed or f"stdout line {number} {problem}: {_shown(line)}"
            else:
                reply.ready, reply.ready_arrival_ns = record, arrived
            continue
        if record.get("error") == "limit":
            detail = str(record.get("detail") or "").strip()
            reply.limit = detail or None
            if not detail:
                reply.malformed = reply.malformed or "a limit line without a detail"
            continue
        problem = next((f"lacks {key} ({kind.__name__})" for key, kind in REQUIRED.items()
                        if not isinstance(record.get(key), kind) or isinstance(record.get(key), bool)), None)
        if problem is None and not isinstance(record.get("extra", {}), dict):
            problem = "extra is not an object"
        if problem is None and record["rep"] != seen:
            problem = f"is repetition {record['rep']}, where repetition {seen} was due (protocol 4: 0, 1, 2 … in order)"
        if problem:
            reply.malformed = reply.malformed or f"stdout line {number} {problem}: {_shown(line)}"
            continue
        seen += 1
        if seen <= first_timed:
            reply.warmups.append(record)
            reply.warmup_arrival_ns.append(arrived)
        elif repeat is not None and len(reply.repetitions) >= repeat:
            reply.malformed = f"stdout line {number} is a repetition beyond the {first_timed + repeat} asked for"
            break
        else:
            reply.repetitions.append(record)
            reply.arrival_ns.append(arrived)
    return reply


def _ready_problem(record: dict[str, Any], reply: Reply) -> str | None:
    """Why a ready line is not protocol 3's, or None."""
    if reply.ready is not None or reply.warmups or reply.repetitions:
        return "is a second ready line, or one after a repetition's (the ready line comes first, once)"
    if record["ready"] not in READY_VALUES:
        return f"has ready = {str(record['ready'])[:20]!r}, not one of {', '.join(READY_VALUES)}"
    start_ns = record.get("start_ns")
    if record["ready"] == "warm" and (not isinstance(start_ns, int) or isinstance(start_ns, bool) or start_ns < 0):
        return "is warm without start_ns, the time its pool took to start (protocol 3)"
    if not isinstance(record.get("extra", {}), dict):
        return "has an extra that is not an object"
    return None


def _as_reason(why: Unreadable) -> str:
    text = str(why)
    return text if text.startswith("not JSON") else f"not readable JSON: {text}"


def _shown(line: str) -> str:
    """A line as an error message quotes it: short, and printable whatever it holds."""
    return ascii(line[:120])


def phase_times(line: dict[str, Any]) -> dict[str, int]:
    """The time a line books in each phase around its work (PHASES and every baseline), by field;
    fields that hold no number are left out."""
    extra = line.get("extra") or {}
    fields = [*PHASES, *(k for k in extra if k.startswith("baseline_") and k.endswith("_ns"))]
    return {k: int(extra[k]) for k in fields
            if isinstance(extra.get(k), (int, float)) and not isinstance(extra.get(k), bool)}


def accounted_ns(line: dict[str, Any]) -> int:
    """The time a line says its implementation spent since the line before: the work, every
    phase around it and every baseline (protocol 2)."""
    return int(line["ns"]) + sum(phase_times(line).values())


def gaps_ns(reply: Reply, fed_ns: list[int] | None = None) -> list[int | None]:
    """For each timed repetition, the time the launcher saw it take: from writing its variant
    (protocol 3) to its line's arrival; without a feed, from the line before it (None for the
    first line of a process)."""
    times = reply.warmup_arrival_ns + reply.arrival_ns
    if fed_ns:
        gaps = [arrived - fed if index < len(fed_ns) else None
                for index, (arrived, fed) in enumerate(zip(times, fed_ns + [0] * len(times)))]
    else:
        gaps = [None] + [later - earlier for earlier, later in zip(times, times[1:])]
    return gaps[len(reply.warmup_arrival_ns):]


def implausible(reply: Reply, repeat: int, expected_items: int | None, wall_ns: int,
                items_unit: str = "items", zero_allowed: bool = False,
                waited_ns: list[int] | None = None) -> str | None:
    """Why the numbers of one process cannot be believed, or None. The harness asked for
    `repeat` timed repetitions of a case whose work is `expected_items` units, and saw the
    process live `wall_ns`. A zero time is allowed where nothing is timed (noop, whose empty
    region a millisecond clock reads as 0) or where the time is not kept (verification).
    `waited_ns` (per line, warm-ups first): time the tree waited for a core, which no timed region
    could hold, taken off the gap between two lines before it is set against the line's `ns`."""
    reps = reply.repetitions
    if len(reps) != repeat:
        return f"printed {len(reps)} timed repetitions, asked for {repeat}"
    for r in reply.warmups + reps:
        if r["ns"] < 0 or (r["ns"] == 0 and not zero_allowed):
            return f"repetition {r['rep']} reports ns = {r['ns']}: not a positive time"
        # A negative phase would give time back: ns could then exceed the launcher's gap and
        # still add up (a seq slowed on paper inflates every speedup over it).
        negative = next(((k, v) for k, v in phase_times(r).items() if v < 0), None)
        if negative:
            return f"repetition {r['rep']} reports {negative[0]} = {negative[1]}: a phase cannot take negative time"
        if r["ns"] > wall_ns:
            return (f"repetition {r['rep']} reports ns = {r['ns']:.3g}, longer than the whole process "
                    f"({wall_ns / 1e6:.1f} ms)")
    if sum(r["ns"] for r in reply.warmups + reps) > wall_ns:
        return f"its repetitions add up to more than the whole process's {wall_ns / 1e6:.1f} ms"
    waits = (waited_ns or [])[len(reply.warmups) + 1:] + [0] * len(reps)
    for previous, (r, arrived), waited in zip(reply.arrival_ns, list(zip(reps, reply.arrival_ns))[1:], waits):
        gap = arrived - previous - waited
        if gap > GAP_WORTH_CHECKING_NS and r["ns"] < gap * MIN_SHARE_OF_GAP:
            return (f"repetition {r['rep']} reports {r['ns']} ns but its line came {gap / 1e6:.1f} ms after "
                    + ("the one before" if not waited else f"the one before, less {waited / 1e6:.1f} ms waiting for a core")
                    + ": the timed region cannot be that short")
    if expected_items is not None:
        wrong = next((r for r in reply.warmups + reps if r["items"] != expected_items), None)
        if wrong is not None:
            return f"repetition {wrong['rep']} reports items = {wrong['items']}, the case is {expected_items} {items_unit}"
    return None
