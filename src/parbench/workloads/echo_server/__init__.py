"""echo-server (seeds 004 and 000, the C10K question): the implementation is a server; the
harness's own load generator (measure/loadgen.c) opens `connections` connections at once and runs
`requests` closed-loop exchanges of `len` random bytes on each, and its clock is the time.

Proofs of work: the load generator checks every byte of every reply against the request it sent
(payloads from SplitMix64 under a seed the harness draws from the CSPRNG for each repetition),
and its digest of the replies must equal the one this package's oracle works out from the seed
alone, in numpy, apart from the C; probes sent in two parts catch a server that replies before
it has read a request whole. The server's own line must count the replies it wrote: every one
the load generator received, probes included (line_problem)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from parbench.workloads.echo_server.oracle import echo_checksum
from parbench.workloads.params import Integer

PARAMS = {
    "connections": Integer(1, 1_000_000, "a number of connections open at once"),
    "requests": Integer(1, 1_000_000, "a number of requests per connection"),
    "len": Integer(0, 65_536, "a payload length in bytes"),
    "wait_us": Integer(0, 10_000_000, "a backend wait in microseconds"),
}
SWEPT_PARAM = "connections"
ORDER = 6
# `parbench sweep tasks --workload echo-server --counts 1000,10000,30000`: per connection, the
# slopes of time and of the tree's peak memory (bytes per connection), and the first count that
# failed, with how (the largest served is the limit, a result).
SWEEPS = {"per-task": "tasks"}
# What the server is told; the rest is the load generator's (measure/echo_loop.py).
SERVER_PARAMS = ("wait_us",)
# The harness drives each process itself: a repetition is the load generator's, between the
# server's lines (measure/echo_loop.py), rather than a variant the server works on.
DRIVER = "load-generator"
SEED_LIMIT = 2 ** 63


def variants(params, count: int, rng) -> list[int]:
    """One seed per repetition, drawn from `rng` (the harness's CSPRNG): the payloads it sends."""
    return [rng.randrange(SEED_LIMIT) for _ in range(count)]


def expected_checksum(params, variant: int | None = None) -> str | None:
    """The digest of the right replies under the repetition's seed; None before a seed is drawn."""
    if variant is None:
        return None
    return echo_checksum(int(params["connections"]), int(params["requests"]), int(params["len"]), int(variant))


def expected_items(params) -> int:
    """Replies: every request of every connection."""
    return int(params["connections"]) * int(params["requests"])


def process_arguments(params, scratch: Path) -> tuple[dict[str, Any], None]:
    """The server takes only its wait; connections, requests and len are the load generator's."""
    return {name: params[name] for name in SERVER_PARAMS if name in params}, None


def machine_ceiling(params) -> tuple[str, str, tuple[int, int, int, int]]:
    """The same load against the harness's C reference server (one thread, epoll)."""
    return ("C epoll reference server", "echo",
            (int(params["connections"]), int(params["requests"]), int(params["len"]), int(params["wait_us"])))


def line_problem(line: dict, context) -> str | None:
    """The server's count of replies written must be every reply the load generator received."""
    extra = line.get("extra", {})
    served, received = extra.get("replies"), extra.get("loadgen_replies")
    probes = extra.get("probe_replies", 0)
    if not isinstance(served, int) or isinstance(served, bool):
        return f"extra.replies {served!r} is not the count of replies the server wrote"
    if isinstance(received, int) and served != received + probes:
        return (f"the server counts {served:,} replies written, the load generator received {received:,} "
                f"and {probes} probe replies")
    return None
