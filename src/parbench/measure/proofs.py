"""The evidence every workload's lines owe beyond their checksum (docs/protocol.md, protocol 2),
judged the same way for every workload: workers whose busy intervals overlapped, and time
between two lines that the implementation accounts for. Workload-specific proofs (probes,
live units, switches) live in each workload's package."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Collection

from parbench.measure.protocol import accounted_ns, phase_times

# A repetition fails when more than 20 % of the gap between two lines, plus 10 ms, is accounted
# for by no phase it reports. 10 % + 5 ms failed 8 of 2,558 honest stored repetitions (the worst
# 14.5 ms of a 52 ms gap: a runtime's GC or loader between two lines); 20 % + 10 ms fails none.
UNACCOUNTED_SHARE = 0.20
UNACCOUNTED_FLOOR_NS = 10_000_000

# The phases a workload may name as holding work of its own (its UNTIMED_WORK), by the fields a
# line books them in; a ceiling's set-up goes with its ceiling, and every `baseline_*_ns` with
# "baselines". The time a line books in a phase its workload does not name counts against the
# allowance above, as if unreported: a spawn-chain's checksum is its answer written out, so 27 ms
# booked there is 27 ms of work outside the timer. Over the 6,347 honest timed repetitions of the
# sittings of 2026-11-28 and -29 (2 cores), such time plus the unaccounted reached at most 44 % of
# the allowance (Java's noop, 4.9 ms of a 4.9 ms gap; Elixir's batch-job, 28 ms of a 267 ms gap).
PHASE_FIELDS = {"checksum": ("checksum_ns",), "ceiling": ("ceiling_ns", "ceiling_setup_ns")}


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


def unvouched(line: dict[str, Any], untimed_work: Collection[str]) -> dict[str, int]:
    """The time a line books in phases its workload says hold no work of their own, by field."""
    vouched = {f for phase, names in PHASE_FIELDS.items() if phase in untimed_work for f in names}
    unnamed = {f for names in PHASE_FIELDS.values() for f in names} - vouched
    return {f: v for f, v in phase_times(line).items()
            if v > 0 and (f in unnamed or (f.startswith("baseline_") and "baselines" not in untimed_work))}


# --- protocol 3: what the launcher saw of the tree's threads and of its own clock ---------------
# A repetition's work "ran on" a set of threads when they took at least this share of the tree's
# CPU in it, and at least the floor (below it, a runtime's own housekeeping thread starting up —
# a JIT compiler, a GC helper — is noise, not a pool).
THREAD_SHARE = 0.5
THREAD_FLOOR_NS = 2_000_000
# The clocks of the launcher and the process are the same CLOCK_MONOTONIC, read a little apart.
CLOCK_SLACK_NS = 1_000_000
CLOCK_SLACK_SHARE = 0.02


@dataclass(frozen=True)
class ThreadUse:
    """One repetition as the launcher saw the tree: from the snapshot at the line before it (when
    its variant was written) to the one at its own line."""
    wall_ns: int
    cpu_ns: int               # the tree's CPU time in the repetition (a cgroup's, else the threads')
    new_cpu_ns: int           # of that, on threads made during the repetition
    leftover_cpu_ns: int      # on threads an earlier repetition made (after the ready line)
    new_threads: int          # threads alive at its end that were not there at its start
    ready_cpu_ns: int = 0     # on threads already there at the ready line, the busiest one set aside
    waited_ns: int = 0        # its threads' and the launcher's time runnable but waiting for a core

    @property
    def cores(self) -> float | None:
        return self.cpu_ns / self.wall_ns if self.wall_ns > 0 else None

    def wait_not_work_ns(self, cores: int) -> int:
        """Of the time its threads waited for a core, what cannot have been work: no more than the
        core time the tree left unused over the gap. A tree that keeps more threads runnable than
        there are cores (spinners of its own) waits too, but it used every core meanwhile: that
        waiting excuses nothing."""
        return max(0, min(self.waited_ns, cores * self.wall_ns - self.cpu_ns))

    def as_extra(self) -> dict[str, Any]:
        """The harness's own observations, stored beside the implementation's fields."""
        return {"measured_cpu_ns": self.cpu_ns, "measured_cores": round(self.cores or 0.0, 3),
                "new_thread_cpu_ns": self.new_cpu_ns, "leftover_thread_cpu_ns": self.leftover_cpu_ns,
                "new_threads": self.new_threads, "ready_thread_cpu_ns": self.ready_cpu_ns,
                "waited_ns": self.waited_ns}


def thread_use(snapshots: list, position: int) -> ThreadUse | None:
    """Repetition `position` (warm-ups first) runs between snapshots[position] (the ready line's
    is the first) and snapshots[position + 1]; None where the launcher did not see both."""
    if position + 1 >= len(snapshots) or not snapshots:
        return None
    ready, before, after = snapshots[0], snapshots[position], snapshots[position + 1]
    kept = after.threads.keys() & before.threads.keys()
    made = after.threads.keys() - before.threads.keys()
    kept_cpu = sum(after.threads[t] - before.threads[t] for t in kept)
    made_cpu = sum(after.threads[t] for t in made)
    leftover = sum(after.threads[t] - before.threads[t] for t in kept if t not in ready.threads)
    # The busiest thread of the ready line is the main thread (whatever its tid: a JVM's main is
    # not its process's first thread); the others were a pool, or the runtime's own housekeeping.
    on_ready = sorted((after.threads[t] - before.threads[t] for t in kept if t in ready.threads), reverse=True)
    if before.tree_cpu_ns is not None and after.tree_cpu_ns is not None:
        tree = max(0, after.tree_cpu_ns - before.tree_cpu_ns)
        # CPU the live threads do not account for ran on threads that ended within the
        # repetition, and is counted as made in it even when an earlier thread ended too: a
        # model that ends one pre-made thread per repetition must not excuse its fresh ones.
        made_cpu += max(0, tree - kept_cpu - made_cpu)
    else:
        tree = kept_cpu + made_cpu
    waited = (sum(after.waits.get(t, 0) - before.waits.get(t, 0) for t in kept)
              + sum(after.waits.get(t, 0) for t in made))
    waited += after.launcher_wait_ns or 0        # its wake for this very line (launcher.c)
    return ThreadUse(after.at_ns - before.at_ns, tree, min(made_cpu, tree), min(leftover, tree), len(made),
                     min(sum(on_ready[1:]), tree), max(0, waited))


# Families whose workers are the OS threads the model makes itself: only for them does a thread
# that existed at the ready line mean a pool. Green units, actors and data-parallel workers may run
# on a runtime's own scheduler threads (the BEAM's, Go's), made before the ready line in any mode.
OS_THREAD_FAMILIES = ("threads",)


# A cold `threads` repetition did its work on the threads it made when they took at least this
# share of its timed region in CPU: honest cold models measured 0.49 and more (the sitting of
# 2026-11-28, 636 repetitions), a pool made before the ready line leaves its fresh threads none.
FRESH_WORK_SHARE = 0.1


def start_problem(start: str, use: ThreadUse | None, family: str = "threads", first: bool = False,
                  ns: int | None = None) -> str | None:
    """Why a timed repetition did not run as its start mode promises (protocol 3), or None.
    `first`: the process's first repetition, where a JIT's compiler threads (made at boot, before
    the ready line) outwork a small case's fresh workers: Java's honest cold threads on the
    100,003-byte verification input failed the pool rule there, so it is judged from the second
    repetition on, and only where the threads from before the ready line did ten times the work
    of the fresh ones and the fresh ones did less than a tenth of the timed `ns` (a pool built
    before the ready line leaves its fresh threads next to none; Java's compiler threads, still
    busy in a second repetition, did 19.5 ms beside fresh threads' honest 1.4 ms)."""
    if use is None:
        return None
    bar = max(THREAD_FLOOR_NS, THREAD_SHARE * use.cpu_ns)
    if start == "warm" and use.new_cpu_ns > bar:
        return (f"a warm repetition ran {use.new_cpu_ns / 1e6:.1f} ms of its {use.cpu_ns / 1e6:.1f} ms of CPU on "
                f"threads or processes it made ({use.new_threads} still alive at its end): a warm pool is made "
                "once, before the ready line")
    if start == "cold" and use.leftover_cpu_ns > bar:
        return (f"a cold repetition ran {use.leftover_cpu_ns / 1e6:.1f} ms of its {use.cpu_ns / 1e6:.1f} ms of CPU "
                "on threads an earlier repetition made: cold workers are made and ended inside each repetition "
                "(a pool that outlives it, such as libgomp's OpenMP team, is warm)")
    if (start == "cold" and family in OS_THREAD_FAMILIES and not first
            and use.ready_cpu_ns > max(THREAD_FLOOR_NS, 10 * use.new_cpu_ns)
            and (ns is None or use.new_cpu_ns < FRESH_WORK_SHARE * ns)):
        return (f"a cold repetition ran {use.ready_cpu_ns / 1e6:.1f} ms of its {use.cpu_ns / 1e6:.1f} ms of CPU on "
                f"threads made before the ready line (its main thread set aside), ten times the "
                f"{use.new_cpu_ns / 1e6:.1f} ms on threads it made"
                + ("" if ns is None else f", under a tenth of its timed {ns / 1e6:.1f} ms")
                + ": a pool built before the ready line is warm")
    return None


def time_problem(lines: list[dict[str, Any]], arrivals: list[int], fed_ns: list[int], *,
                 untimed_work: Collection[str], waited_ns: list[int] | None = None,
                 too_busy: list[str] | None = None) -> str | None:
    """The first repetition, warm-up or timed, whose time does not add up against the launcher's
    clock (protocol 3): it accounts for more than the launcher saw between writing its variant and
    reading its line, or leaves too much of that gap unaccounted (the time it books in a phase
    that holds no work of its own in this workload, `untimed_work`, included), or books too much
    outside its timer. One such repetition fails the case: a rule over most repetitions lets half
    of them lie.
    The process's first repetition is spared the last rule only: a JIT loads its classes and a
    BEAM its modules around the first timer (Java's noop booked 14 ms, Elixir's distributed
    chain 41 ms, both honest), and its figure is the cold `1st`, never the steady median.
    Hidden work needs a core; waiting for one does not. `waited_ns`, per line, is what the kernel
    says the tree and the launcher sat runnable with no core free (ThreadUse.wait_not_work_ns): it
    is taken off the unaccounted time first, and what is left of it off the time booked outside
    the timer. `too_busy` collects the repetitions that pass only thanks to it: on a machine that
    busy their time cannot be judged, and the result says so."""
    waits = list(waited_ns or []) + [0] * len(lines)
    for position, (line, arrived, fed) in enumerate(zip(lines, arrivals, fed_ns)):
        seen = arrived - fed
        claimed = accounted_ns(line)
        label = f"repetition {line['rep']} (warm-ups count from 0)"
        if claimed > seen + CLOCK_SLACK_NS + CLOCK_SLACK_SHARE * seen:
            return (f"{label} accounts for {claimed / 1e6:.2f} ms (its ns and phases), but the launcher saw "
                    f"only {seen / 1e6:.2f} ms between writing its variant and reading its line")
        booked = unvouched(line, untimed_work)
        waited = waits[position]
        excused = min(waited, max(seen - claimed, 0))
        # The allowance is a share of the time the tree could work in: a gap stretched by waiting
        # must not widen the room for hidden work.
        allowance = UNACCOUNTED_SHARE * (seen - excused) + UNACCOUNTED_FLOOR_NS
        unaccounted = seen - claimed + sum(booked.values())
        waiting = f", {excused / 1e6:.2f} ms of it waiting for a core," if excused else ""
        if unaccounted - excused > allowance:
            allowed = f"(allowed: {100 * UNACCOUNTED_SHARE:.0f} % + {UNACCOUNTED_FLOOR_NS / 1e6:.0f} ms)"
            if not booked:
                return (f"{label} leaves {(seen - claimed) / 1e6:.2f} ms of the {seen / 1e6:.2f} ms the launcher "
                        f"saw{waiting} unaccounted for by its ns ({int(line['ns']) / 1e6:.2f} ms) and phases "
                        f"{allowed}: work outside the timer")
            where = ", ".join(f"{f} {v / 1e6:.2f} ms" for f, v in booked.items())
            return (f"{label} books {where} of the {seen / 1e6:.2f} ms the launcher saw, in phases that hold no "
                    f"work of their own in this workload, and leaves {max(seen - claimed, 0) / 1e6:.2f} ms "
                    f"unaccounted{waiting or ','} beside its ns of {int(line['ns']) / 1e6:.2f} ms {allowed}: work "
                    "outside the timer")
        outside_excess = booked_outside_ns(line) - max(OUTSIDE_FLOOR_NS, int(line["ns"])) if position > 0 else 0
        if outside_excess > waited - excused:
            return (f"{label} books {booked_outside_ns(line) / 1e6:.2f} ms as prepare and cleanup, more than its "
                    f"timed {int(line['ns']) / 1e6:.2f} ms and {OUTSIDE_FLOOR_NS / 1e6:.0f} ms"
                    + (f" and the {(waited - excused) / 1e6:.2f} ms it waited for a core" if waited > excused else "")
                    + ": work outside the timer")
        if too_busy is not None and (unaccounted > UNACCOUNTED_SHARE * seen + UNACCOUNTED_FLOOR_NS
                                     or outside_excess > 0):
            too_busy.append(f"{label} ({waited / 1e6:.2f} ms of its {seen / 1e6:.2f} ms waiting for a core)")
    return None


# Phases booked outside the timed region are for resetting buffers, deriving the variant and
# dropping results (docs/protocol.md): more than the work itself, and more than this, is time
# the timed region should have held.
# 10 ms, not 2: Ruby's honest fiber spawn-chain books up to 6.4 ms (1.1 x its ns) of cleanup, its
# garbage collector's.
OUTSIDE_FLOOR_NS = 10_000_000


def booked_outside_ns(line: dict[str, Any]) -> int:
    times = phase_times(line)
    return times.get("prepare_ns", 0) + times.get("cleanup_ns", 0)


def booked_outside_too_much(line: dict[str, Any]) -> bool:
    return booked_outside_ns(line) > max(OUTSIDE_FLOOR_NS, int(line["ns"]))
