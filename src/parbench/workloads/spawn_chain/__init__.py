"""spawn-chain (seed 003): `n` units in a chain passing one integer.

Proofs of work: each repetition sends its own start value s into the chain and must answer
s + n; a model that claims concurrency and counts the units alive at once must count n. A chain
of OS threads or processes must count them (extra.live_units), and the kernel's peak of the
tree's tasks, which the launcher reads at each line (extra.peak_tasks), must reach that count, and
so must the tasks the machine made during the repetition and the tree's threads alive before it
that ran in it (extra.tasks_made + extra.tasks_kept). A chain of green units, coroutines or actors
has no such evidence: its ✓ reads "units unverified" (proof_label)."""
from __future__ import annotations

from parbench.workloads.params import Integer
from parbench.workloads.seeds import Figure, Seed
from parbench.workloads.spawn_chain.oracle import spawn_chain_checksum

PARAMS = {"n": Integer(0, 10 ** 9, "a chain length")}
SWEPT_PARAM = "n"
ORDER = 4
SWEEPS = {"per-task": "tasks"}
# The hand-off ceiling takes time of its own; the checksum is the answer itself, written out.
UNTIMED_WORK = ("ceiling",)
START_LIMIT = 2 ** 31

SEED = Seed("003", "spawn-chain", "spawn-chain: a chain of N processes passing one integer",
            "4 cores; Elixir on OTP 19, Squeak, Ruby 2.4 on cygwin", 4, (
                Figure("Elixir spawn, 10k", "elixir", "spawn", "n", 10_000, 10_000, "process", 62e6),
                Figure("Elixir spawn, 40k", "elixir", "spawn", "n", 40_000, 40_000, "process", 156e6),
                Figure("Elixir spawn, 100k", "elixir", "spawn", "n", 100_000, 100_000, "process", 438e6),
                Figure("Elixir spawn, 1M (+P 1000000)", "elixir", "spawn", "n", 1_000_000, 1_000_000, "process",
                       4.344e9, command_params={"max_processes": 1_000_000}),
                Figure("Elixir spawn, 400k without +P", "elixir", "spawn", "n", 400_000, 400_000, "process", 0,
                       {"max_processes": None}, quantity="limit",
                       limit_text="SystemLimitError: Too many processes (262,144 by default)"),
                Figure("Squeak fork + SharedQueue, 40k", "squeak", "fork", "n", 40_000, 40_000, "process", 382e6),
                Figure("Squeak fork + SharedQueue, 400k", "squeak", "fork", "n", 400_000, 400_000, "process",
                       3.526e9),
                Figure("Ruby Fiber#transfer chain, 40k", "ruby", "fiber", "n", 40_000, 40_000, "process", 22.9e9),
                Figure("Ruby Fiber chain above 50k", "ruby", "fiber", "n", 100_000, 100_000, "process", 0,
                       quantity="limit", limit_text="fails above 50k fibers"),
            ), "per-process cost and the limits differ by orders of magnitude",
            note="process creation is mostly single-core work: the difference is the CPU and the runtime version")


def variants(params, count: int, rng) -> list[int]:
    """Distinct start values drawn from `rng` (a secret generator: protocol 3's variants are not
    predictable)."""
    return rng.sample(range(START_LIMIT), count)


def expected_checksum(params, variant: int | None = None) -> str:
    return spawn_chain_checksum(int(params["n"]), variant or 0)


def expected_items(params) -> int:
    return int(params["n"])


def machine_ceiling(params) -> tuple[str, str, int]:
    """n hand-offs between two threads through one atomic word: what n links at least pay."""
    return "atomic hand-off", "handoff", int(params["n"])


OS_UNIT_FAMILIES = ("threads", "processes")


def proof_label(params, family: str) -> str | None:
    """The answer proves n increments from the variant, not n units: the launcher sees a chain of
    OS threads or processes (line_problem), but a runtime's green units, coroutines or actors live
    inside it, where a loop that simulates them prints the same answer and the same count."""
    return None if family in OS_UNIT_FAMILIES + ("seq",) else "units unverified"


def line_problem(line: dict, context) -> str | None:
    extra = line.get("extra", {})
    live, peak = extra.get("live_units"), extra.get("peak_tasks")
    n = int(context.params["n"])
    counted = isinstance(live, int) and not isinstance(live, bool)
    if context.family in OS_UNIT_FAMILIES and not counted:
        return (f"lacks extra.live_units: a chain of OS {context.family} counts the units alive at once, "
                "and the launcher checks that count against the tree's tasks")
    if context.family != "seq" and counted and live < n:
        return f"only {live} of the chain's {n} units existed at once (extra.live_units): not a chain of n units"
    # Each OS unit is a task of the tree, so n of them alive at once make the kernel's peak reach n
    # (the runtime's own threads only raise it): a lower peak means the units never coexisted.
    if context.family in OS_UNIT_FAMILIES and counted and isinstance(peak, int) and peak < live:
        return (f"claims {live} units alive at once (extra.live_units), but the tree never had more than {peak} "
                "tasks (threads of all its processes) at once, as the kernel counts them")
    # No unit may be reused, so each repetition's units are threads or processes made in it (the
    # whole machine made `tasks_made`, others' included, which bounds the tree's) or ones the
    # runtime kept alive from before and ran in it (`tasks_kept`: Ruby's thread cache). The
    # peak above is the process's since its start, so it alone passes a chain that made its
    # threads in one repetition, ended them, and claims them in the rest.
    made, kept = extra.get("tasks_made"), extra.get("tasks_kept")
    if context.family in OS_UNIT_FAMILIES and counted and isinstance(made, int) and isinstance(kept, int) \
            and made + kept < live:
        return (f"claims {live} units alive at once (extra.live_units), but the whole machine made only {made} "
                f"threads or processes during this repetition and only {kept} of the tree's threads from before "
                "ran in it, as the kernel counts them")
    return None
