"""sdes-ecb (seed 001): S-DES in ECB mode over a cached text of `size` bytes."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parbench import oracle
from parbench.inputs import sdes_text
from parbench.oracle_cache import cached
from parbench.workloads.params import Choice, Integer

SEED_ARTICLE = "seed-article"       # the article's four-line text instead of a generated one


@dataclass(frozen=True)
class Size:
    """Bytes, or the seed article's own small text."""

    def check(self, name: str, value: Any):
        if value == SEED_ARTICLE:
            return value
        return Integer(1, 1 << 40, f"a size in bytes (or '{SEED_ARTICLE}')").check(name, value)


PARAMS = {"size": Size(), "key": Integer(0, 1023, "a 10-bit key"), "cipher": Choice(("bitwise", "table")),
          "chunk": Integer(1, 1 << 40, "a chunk size in bytes")}
SWEPT_PARAM = "size"
ORDER = 2


def input_path(params: dict[str, Any]) -> Path:
    if params["size"] == SEED_ARTICLE:
        return sdes_text.ensure_seed_article_text()
    return sdes_text.ensure(int(params["size"]))


def expected_checksum(params: dict[str, Any]) -> str:
    key = int(params["key"])
    return cached("sdes-ecb", {"size": params["size"], "key": key},
                  lambda: oracle.sdes_ecb_checksum(input_path(params).read_bytes(), key))


def expected_items(params: dict[str, Any]) -> int:
    return input_path(params).stat().st_size


def process_arguments(params: dict[str, Any], scratch: Path):
    rest = {k: v for k, v in params.items() if k != "size"}
    return {"input": str(input_path(params)), **rest}, None
