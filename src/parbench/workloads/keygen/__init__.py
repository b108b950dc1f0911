"""keygen (seed 000): `count` random keys of `bytes` bytes, each Base32-encoded lower case.

Proofs of work: a seeded repetition's digest must be the oracle's for its own seed (a variant
per repetition); every repetition of either source also shows the keys at positions the harness
picks afresh per process, checked for length and alphabet (and, seeded, exactly); the strong
source's digests may never repeat, neither within a process nor across a case's processes, and
the strong keys a process showed pass two tests of randomness (randomness.py)."""
from __future__ import annotations

import random
import re
from typing import Any

from parbench.workloads.keygen.oracle import encoded_length, keygen_checksum, keygen_key
from parbench.workloads.keygen.randomness import randomness_problem
from parbench.workloads.oracle_cache import cached
from parbench.workloads.params import Choice, Integer
from parbench.workloads.seeds import Figure, Seed

PARAMS = {"count": Integer(1, 10 ** 9, "a key count"), "bytes": Integer(1, 1 << 20, "a key size in bytes"),
          "source": Choice(("strong", "seeded")), "seed": Integer(0, 2 ** 64 - 1),
          "kernel": Choice(("portable", "tuned"))}
SWEPT_PARAM = "count"
ORDER = 1
SWEEPS = {"scaling": "workers", "crossover": "size"}
# The digest of every key and the ceiling (the CSPRNG and the encoder alone) take time of their own.
UNTIMED_WORK = ("checksum", "ceiling")
PROBES = 3
DIGEST = re.compile(r"[0-9a-f]{16}")
BASE32 = re.compile(r"[a-z2-7]*=*")

SEED = Seed("000", "keygen", "keygen: 1M strong random keys, Base32 (Elixir Flow)",
            "Apple M2 Max, 12 cores, Elixir 1.15.7 / OTP 26", 12, (
                Figure("sequential Enum.map, 1M keys", "elixir", "seq", "count", 1_000_000, 1e6, "key", 5.54e9),
                Figure("Flow (parallel), 1M keys", "elixir", "flow", "count", 1_000_000, 1e6, "key", 1.40e9),
            ), "parallel maps pay off for heavy CPU-bound items")


def _seeded(params) -> bool:
    return params.get("source", "strong") == "seeded"


def variants(params, count: int, rng) -> list[int] | None:
    """Distinct seeds drawn from `rng` (a secret generator: protocol 3's variants are not
    predictable), so a seeded repetition cannot reuse another's keys."""
    chosen: set[int] = set()
    while len(chosen) < count:           # below 2^53: every runtime's integer holds it (a JS number too)
        chosen.add(rng.getrandbits(53))
    return sorted(chosen, key=lambda _: rng.random())


def expected_checksum(params, variant: int | None = None) -> str | None:
    if not _seeded(params):
        return None
    count, size = int(params["count"]), int(params["bytes"])
    seed = int(params.get("seed", 0)) if variant is None else variant
    if variant is not None:     # a seed drawn for one process never recurs: nothing to keep
        return keygen_checksum(count, size, seed)
    return cached("keygen", {"count": count, "bytes": size, "seed": seed},
                  lambda: keygen_checksum(count, size, seed))


def expected_items(params) -> int:
    return int(params["count"])


def proof_label(params, family: str) -> str | None:
    """Strong keys' digest is no oracle's: only their form, probes and randomness are checked."""
    return None if _seeded(params) else "form checked"


def unique_answers(params) -> bool:
    return not _seeded(params)


def process_extras(params, rng: random.Random) -> dict[str, Any]:
    count = int(params["count"])
    return {"probes": ",".join(str(rng.randrange(count)) for _ in range(min(PROBES, count)))}


def line_problem(line: dict, context) -> str | None:
    params = context.params
    positions = [int(p) for p in str(context.arguments.get("probes", "")).split(",") if p]
    probes = line.get("extra", {}).get("probes")
    if not _seeded(params) and not DIGEST.fullmatch(str(line.get("checksum"))):
        return f"the strong keys' checksum {line.get('checksum')!r} is not a 16-hex-digit digest of the keys"
    if not isinstance(probes, list) or len(probes) != len(positions):
        return f"extra.probes {probes!r} does not hold the {len(positions)} keys asked for at {positions}"
    size = encoded_length(int(params["bytes"]))
    for position, key in zip(positions, probes):
        if not isinstance(key, str) or len(key) != size or not BASE32.fullmatch(key):
            return f"the key at position {position} ({str(key)[:40]!r}) is not a Base32 key of {size} characters"
        if _seeded(params) and key != keygen_key(context.variant, position, int(params["bytes"])):
            return f"the key at position {position} is not the seeded key {context.variant} gives there"
    return None


def process_problem(lines: list[dict], context) -> str | None:
    if _seeded(context.params):
        return None
    digests = [line.get("checksum") for line in lines]
    if len(set(digests)) < len(digests):
        return "two repetitions printed the same digest of strong random keys: a result was reused"
    probes = [tuple(line.get("extra", {}).get("probes") or ()) for line in lines]
    if len(lines) > 1 and len(set(probes)) < len(probes):
        return "two repetitions showed the same strong keys at the probed positions: a result was reused"
    keys = [key for line in lines for key in line.get("extra", {}).get("probes") or () if isinstance(key, str)]
    return randomness_problem(keys)
