"""exec's proof per point: what every run at one parameter set must print, taken once from a
reference command (--check CMD) or a file (--expect-file FILE), and the first place a run's
output differs from it, said in words."""
from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from parbench import targets
from parbench.measure.process import MAX_LINE_BYTES

SHOWN = 60          # characters of a differing line shown in the failure's sentence


@dataclass(frozen=True)
class ReferenceOutput:
    digest: str               # SHA-256 of all its bytes (as the launcher digests a run's stdout)
    head: str                 # its first MAX_LINE_BYTES, decoded (to say where a run differs)
    source: str               # what it came from, as the failure names it


def from_file(path: str) -> ReferenceOutput:
    """FILE's bytes as the output every run must print, read as the launcher reads a run's stdout:
    digested whole as a stream, its head kept (so its size costs no memory); OSError where it
    cannot be read or is not a regular file (a device or a FIFO would never end)."""
    digest, head = hashlib.sha256(), b""
    fd = targets.open_regular(path)
    try:
        for chunk in targets.chunks(fd):
            digest.update(chunk)
            head += chunk[:MAX_LINE_BYTES - len(head)]
    finally:
        os.close(fd)
    return ReferenceOutput(digest.hexdigest(), head.decode(errors="replace"), f"--expect-file {path}")


def binary(text: str) -> bool:
    """Output no line of which a person could read: a NUL, or bytes that are no UTF-8."""
    return "\x00" in text or "\ufffd" in text


def first_difference(expected: str, printed: str) -> str:
    """Where `printed` leaves `expected`: the first differing line, both shown (shortened); for
    binary output (a compressor's) only where it starts to differ, which is what a reader can use."""
    if binary(expected) or binary(printed):
        at = next((i for i, (a, b) in enumerate(zip(expected, printed)) if a != b), min(len(expected), len(printed)))
        return f"binary output, different from character {at:,} on (of the first {MAX_LINE_BYTES:,} bytes)"
    wanted, got = expected.splitlines(), printed.splitlines()
    for number, (a, b) in enumerate(zip(wanted, got), 1):
        if a != b:
            return f"line {number}: expected {a[:SHOWN]!r}, printed {b[:SHOWN]!r}"
    if len(wanted) != len(got):
        return f"{len(got)} line(s) printed where {len(wanted)} were expected"
    if expected != printed:
        return f"{len(printed)} characters printed where {len(expected)} were expected"
    return f"beyond the first {MAX_LINE_BYTES} bytes"


def mismatch(reference: ReferenceOutput, digest: str, head: str) -> str | None:
    """None when the run printed the reference's bytes; else the sentence its failure carries."""
    if digest == reference.digest:
        return None
    return f"its output differs from {reference.source}'s at the same parameters: {first_difference(reference.head, head)}"
