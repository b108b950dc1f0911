"""Both sides of docs/protocol.md: the command line the harness sends, the JSON lines it reads,
and the checks every process's lines must pass before any of its numbers is believed."""
from __future__ import annotations

import collections
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
                 workers: int | None, warmup: int, repeat: int) -> list[str]:
    """The process's arguments. Its variants are not among them: protocol 3 writes each to its
    stdin when that repetition starts (feed_of)."""
    argv = [run_script, workload, "--model", model]
    for name, value in params.items():
        argv += [f"--{name.replace('_', '-')}", str(value)]
    if workers is not None:
        argv += ["--workers", str(workers)]
    return argv + ["--warmup", str(warmup), "--repeat", str(repeat)]


def feed_of(variants: list[int] | None, warmup: int, repeat: int) -> list[int]:
    """What the launcher writes to the process's stdin, one per repetition (warm-ups first):
    the variants, or 0 for a workload without them (protocol 3)."""
    return list(variants) if variants else [0] * (warmup + repeat)


@dataclass
class Reply:
    """What one process printed: its repetitions, or the limit it hit, or why it is unreadable."""
    repetitions: list[dict[str, Any]] = field(default_factory=list)
    arrival_ns: list[int] = field(default_factory=list)     # when each repetition's line arrived
    warmups: list[dict[str, Any]] = field(default_factory=list)   # protocol 2: checked, never timed
    warmup_arrival_ns: list[int] = field(default_factory=list)
    ready: dict[str, Any] | None = None                         # protocol 3: the first line
    ready_arrival_ns: int | None = None
    limit: str | None = None
    malformed: str | None = None


REQUIRED = {"rep": int, "ns": int, "items": int, "checksum": str}
WARMUP_REQUIRED = {"warmup": int, "ns": int, "items": int, "checksum": str}
START_MODES = ("cold", "warm")
READY_VALUES = START_MODES + ("none",)
# The phases an implementation spends between two of its lines besides `ns` (protocol 2); with
# every baseline_*_ns they account for the gap the launcher sees between the two lines.
PHASES = ("checksum_ns", "ceiling_ns", "ceiling_setup_ns", "prepare_ns", "cleanup_ns")


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


def parse_stdout(lines: list[str] | str, times: list[int] | None = None, repeat: int | None = None) -> Reply:
    """Every line is read even after a bad one, so that a limit line printed after some stray
    runtime output (a VM's own warning on stdout, say) still says what stopped the work. With
    `repeat`, the first timed repetition line beyond it ends the reading: the case is bad output."""
    if isinstance(lines, str):
        lines = lines.splitlines()
    times = times or [0] * len(lines)
    reply = Reply()
    for number, (line, arrived) in enumerate(zip(lines, times), 1):
        if not line.strip():
            continue
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
        if "ready" in record and not ({"rep", "warmup"} & record.keys()):
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
        required = WARMUP_REQUIRED if "warmup" in record and "rep" not in record else REQUIRED
        problem = next((f"lacks {key} ({kind.__name__})" for key, kind in required.items()
                        if not isinstance(record.get(key), kind) or isinstance(record.get(key), bool)), None)
        if problem is None and not isinstance(record.get("extra", {}), dict):
            problem = "extra is not an object"
        if problem:
            reply.malformed = reply.malformed or f"stdout line {number} {problem}: {_shown(line)}"
            continue
        if required is WARMUP_REQUIRED:
            reply.warmups.append(record)
            reply.warmup_arrival_ns.append(arrived)
        elif repeat is not None and len(reply.repetitions) >= repeat:
            reply.malformed = f"stdout line {number} is a timed repetition beyond the {repeat} asked for"
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


def accounted_ns(line: dict[str, Any]) -> int:
    """The time a line says its implementation spent since the line before: the work, every
    phase around it and every baseline (protocol 2)."""
    extra = line.get("extra") or {}
    phases = [extra.get(k) for k in PHASES] + [v for k, v in extra.items()
                                                if k.startswith("baseline_") and k.endswith("_ns")]
    return int(line["ns"]) + sum(int(v) for v in phases if isinstance(v, (int, float)) and not isinstance(v, bool))


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
                items_unit: str = "items", zero_allowed: bool = False, warmup: int | None = None) -> str | None:
    """Why the numbers of one process cannot be believed, or None. The harness asked for
    `repeat` timed repetitions of a case whose work is `expected_items` units, and saw the
    process live `wall_ns`. A zero time is allowed where nothing is timed (noop, whose empty
    region a millisecond clock reads as 0) or where the time is not kept (verification)."""
    reps = reply.repetitions
    if warmup is not None and [w["warmup"] for w in reply.warmups] != list(range(warmup)):
        return (f"printed warm-up lines {[w['warmup'] for w in reply.warmups][:10]}, expected 0 … {warmup - 1} "
                "(protocol 2: every warm-up prints its line)" if warmup else
                f"printed {len(reply.warmups)} warm-up line(s), none asked for")
    indices = [r["rep"] for r in reps]
    if len(reps) != repeat or sorted(indices) != list(range(repeat)):
        duplicated = sorted(i for i, n in collections.Counter(indices).items() if n > 1)
        return (f"printed {len(reps)} timed repetitions, asked for {repeat}"
                + (f" (rep {', '.join(map(str, duplicated))} more than once)" if duplicated else "")
                if len(reps) != repeat or duplicated else
                f"repetitions numbered {indices}, expected 0 … {repeat - 1}")
    for r in reps:
        if r["ns"] < 0 or (r["ns"] == 0 and not zero_allowed):
            return f"repetition {r['rep']} reports ns = {r['ns']}: not a positive time"
        if r["ns"] > wall_ns:
            return (f"repetition {r['rep']} reports ns = {r['ns']:.3g}, longer than the whole process "
                    f"({wall_ns / 1e6:.1f} ms)")
    if sum(r["ns"] for r in reps) > wall_ns:
        return f"its repetitions add up to more than the whole process's {wall_ns / 1e6:.1f} ms"
    for previous, (r, arrived) in zip(reply.arrival_ns, list(zip(reps, reply.arrival_ns))[1:]):
        gap = arrived - previous
        if gap > GAP_WORTH_CHECKING_NS and r["ns"] < gap * MIN_SHARE_OF_GAP:
            return (f"repetition {r['rep']} reports {r['ns']} ns but its line came {gap / 1e6:.1f} ms after "
                    "the one before: the timed region cannot be that short")
    if expected_items is not None:
        wrong = next((r for r in reply.warmups + reps if r["items"] != expected_items), None)
        if wrong is not None:
            which = f"repetition {wrong['rep']}" if "rep" in wrong else f"warm-up {wrong['warmup']}"
            return f"{which} reports items = {wrong['items']}, the case is {expected_items} {items_unit}"
    return None

