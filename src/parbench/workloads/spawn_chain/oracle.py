"""spawn-chain's reference answer: the start value handed through n links."""
from __future__ import annotations


def spawn_chain_checksum(n: int, start: int = 0) -> str:
    return str(start + n)
