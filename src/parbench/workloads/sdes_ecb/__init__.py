"""sdes-ecb (seed 001): S-DES in ECB mode over a cached text of `size` bytes.

Proofs of work: every repetition encrypts under its own key (a variant per repetition), and its
SHA-256 must be the oracle's for that key."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parbench.workloads.oracle_cache import cached
from parbench.workloads.params import Choice, Integer
from parbench.workloads.sdes_ecb import inputs
from parbench.workloads.sdes_ecb.oracle import sdes_ecb_checksum
from parbench.workloads.seeds import Figure, Seed

SEED_ARTICLE = "seed-article"       # the article's four-line text instead of a generated one
KEYS = 1024


@dataclass(frozen=True)
class Size:
    """Bytes, or the seed article's own small text."""

    def check(self, name: str, value: Any):
        if value == SEED_ARTICLE:
            return value
        return Integer(1, 1 << 40, f"a size in bytes (or '{SEED_ARTICLE}')").check(name, value)


PARAMS = {"size": Size(), "key": Integer(0, 1023, "a 10-bit key"), "cipher": Choice(("bitwise", "table")),
          "chunk": Integer(1, 1 << 40, "a chunk size in bytes"), "kernel": Choice(("portable", "tuned"))}
SWEPT_PARAM = "size"
ORDER = 2
SWEEPS = {"scaling": "workers", "crossover": "size"}
# Its SHA-256 of megabytes, its ceiling and its baselines (memcpy, stream, vector) each take
# time of their own.
UNTIMED_WORK = ("checksum", "ceiling", "baselines")

SEED = Seed("001", "sdes-ecb", "sdes-ecb: S-DES in ECB mode over 955 MB (Rust Rayon)",
            "Apple M1 Pro, 8 threads", 8, (
                Figure("serial iterator, 955 MB", "rust", "seq", "size", 955_000_000, 955.0, "MB", 102.64e9,
                       {"cipher": "bitwise"}),
                Figure("Rayon par_iter, 955 MB", "rust", "rayon", "size", 955_000_000, 955.0, "MB", 19.11e9,
                       {"cipher": "bitwise"}),
                Figure("serial, the four-line text", "rust", "seq", "size", "seed-article", 1, "run", 10.00e3,
                       {"cipher": "bitwise"}),
                Figure("Rayon, the four-line text", "rust", "rayon", "size", "seed-article", 1, "run", 133.81e3,
                       {"cipher": "bitwise"}),
            ), "there is a crossover input size below which parallel loses")


def input_path(params: dict[str, Any]) -> Path:
    if params["size"] == SEED_ARTICLE:
        return inputs.ensure_seed_article_text()
    return inputs.ensure(int(params["size"]))


def footprint(params: dict[str, Any]) -> tuple[int, int]:
    """Disk for the input (none once cached) and memory for the oracle, which reads the whole
    text and translates it into a second buffer (workloads/footprint.py checks both)."""
    if params.get("size", SEED_ARTICLE) == SEED_ARTICLE:
        return 0, 0
    size = int(params["size"])
    cached_input = inputs.cache_root() / f"sdes-title-basics-s1-{size}.tsv"
    return (0 if cached_input.exists() else size), 2 * size


def variants(params, count: int, rng) -> list[int]:
    """Distinct keys drawn from `rng` (a secret generator: protocol 3's variants are not
    predictable); beyond the 1,024 keys there are, they repeat in the same order."""
    chosen = rng.sample(range(KEYS), min(count, KEYS))
    return [chosen[j % len(chosen)] for j in range(count)]


def expected_checksum(params: dict[str, Any], variant: int | None = None) -> str:
    key = int(params["key"]) if variant is None else variant
    return cached("sdes-ecb", {"size": params["size"], "key": key},
                  lambda: sdes_ecb_checksum(input_path(params).read_bytes(), key))


def expected_items(params: dict[str, Any]) -> int:
    return input_path(params).stat().st_size


def machine_ceiling(params: dict[str, Any]) -> tuple[str, str, int]:
    """One memcpy of the input's size: reading and writing every byte, the least any kernel does."""
    return "memcpy", "copy", expected_items(params)


def process_arguments(params: dict[str, Any], scratch: Path):
    rest = {k: v for k, v in params.items() if k != "size"}
    return {"input": str(input_path(params)), **rest}, None
