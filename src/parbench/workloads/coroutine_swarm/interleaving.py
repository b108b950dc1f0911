"""coroutine-swarm's proof of interleaving: the tickets the probe tasks drew from the swarm's
shared counter, checked against the orders in which tasks that yield to each other can run.

Every step of every task draws the next ticket from one counter (a fetch-add), so the tickets
number the steps in the order the scheduler ran them. The salt picks about 16 probe tasks; each
reports the tickets of its first and last steps. Tasks that ran one after the other hold
consecutive tickets; a task that yielded to others holds a range with their steps inside. A model
can count switches wrongly, but to pass here it must hand over tickets that an interleaved order
drew (docs/protocol.md, "Proof of interleaving")."""
from __future__ import annotations

PROBES = 16


def probe_stride(tasks: int) -> int:
    """Task t is a probe when (t + salt) % stride == 0: about PROBES of them, every task below 32."""
    return max(1, tasks // PROBES)


def probe_tasks(tasks: int, salt: int) -> set[int]:
    stride = probe_stride(tasks)
    return set(range((-salt) % stride, tasks, stride))


def interleaving_problem(extra: dict, tasks: int, steps: int, salt: int) -> str | None:
    """Why the line's tickets do not prove that its tasks interleaved, or None."""
    if tasks == 0 or steps == 0:
        return None
    probes = _probes(extra.get("ticket_probes"))
    tickets = extra.get("tickets")
    if probes is None or not _is_int(tickets):
        return ("interleaving unproven: extra.tickets and extra.ticket_probes ([task, first, last] per probe task) "
                "are missing or malformed (protocol 4, proof of interleaving)")
    if tickets != tasks * steps:
        return f"interleaving unproven: it drew {tickets} tickets, not tasks × steps = {tasks * steps}"
    expected = probe_tasks(tasks, salt)
    if sorted(t for t, _, _ in probes) != sorted(expected):
        return (f"interleaving unproven: it probed tasks {_few(sorted(t for t, _, _ in probes))}, "
                f"not the salt's {_few(sorted(expected))}")
    return _range_problem(probes, tickets, steps) or _overlap_problem(probes, tasks, steps)


def _range_problem(probes: list[tuple[int, int, int]], tickets: int, steps: int) -> str | None:
    drawn: set[int] = set()
    for task, first, last in probes:
        if not 0 <= first <= last < tickets or last - first < steps - 1:
            return (f"interleaving unproven: task {task}'s tickets {first}…{last} cannot hold its {steps} steps "
                    f"among {tickets} tickets")
        own = {first, last}
        if own & drawn:
            return f"interleaving unproven: task {task} reports a ticket another probe task drew"
        drawn |= own
    return None


def _overlap_problem(probes: list[tuple[int, int, int]], tasks: int, steps: int) -> str | None:
    """With two tasks or more and two steps or more, some probe task's life held another task's
    step: its last ticket is more than steps − 1 past its first. Tasks run to completion leave
    every probe's tickets consecutive.

    Not every probe, and probes need not overlap each other: a round-robin wheel can run one
    task's last step of a round and its first of the next back to back (tokio's current-thread
    runtime does, at 2 steps), Ruby's Thread.pass may keep the lock, and tokio's workers take
    turns among about a hundred tasks at a time, so probes 300 tasks apart live in disjoint
    windows, each of them interleaved."""
    if tasks < 2 or steps < 2:
        return None
    if any(last - first > steps - 1 for _, first, last in probes):
        return None
    return (f"interleaving unproven: each of its {len(probes)} probe tasks ran its {steps} steps back to back "
            "(consecutive tickets): no task ever yielded to another")


def _probes(value) -> list[tuple[int, int, int]] | None:
    if not isinstance(value, list) or not all(
            isinstance(p, list) and len(p) == 3 and all(_is_int(x) for x in p) for p in value):
        return None
    return [tuple(p) for p in value]


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _few(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers[:6])) + (" …" if len(numbers) > 6 else "")
