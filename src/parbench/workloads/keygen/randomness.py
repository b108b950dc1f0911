"""Whether the strong keys a process showed look like a CSPRNG's bytes: no proof exists that a
digest came from os.urandom, but keys made by a counter, a clock or a constant pattern fail
these tests. Two of NIST SP 800-22's (frequency and runs) on the probed keys' decoded bits,
each at a false-alarm rate of 1e-6, so an honest process is failed at most 2e-6 of the time.
A seeded PRNG (random.Random, a splitmix) passes them: they catch patterns, not predictability."""
from __future__ import annotations

import base64
import binascii
import math

FALSE_ALARM = 1e-6        # per test: the chance that bytes from a true CSPRNG fail it


def decoded(keys: list[str]) -> bytes:
    """The bytes behind lower-case Base32 keys (a key that does not decode is line_problem's to
    fail, not this test's)."""
    found = []
    for key in keys:
        try:
            found.append(base64.b32decode(key.upper()))
        except (binascii.Error, ValueError):
            continue
    return b"".join(found)


def bits_of(data: bytes) -> list[int]:
    return [(byte >> shift) & 1 for byte in data for shift in range(7, -1, -1)]


def frequency_p(bits: list[int]) -> float:
    """Monobit: as many ones as zeros, within chance."""
    n = len(bits)
    return math.erfc(abs(2 * sum(bits) - n) / math.sqrt(2 * n)) if n else 1.0


def runs_p(bits: list[int]) -> float:
    """Runs: the bits change value as often as chance has them (a counter changes too rarely)."""
    n = len(bits)
    if n < 2:
        return 1.0
    share = sum(bits) / n
    if share in (0.0, 1.0):
        return 0.0
    runs = 1 + sum(a != b for a, b in zip(bits, bits[1:]))
    spread = 2 * math.sqrt(2 * n) * share * (1 - share)
    return math.erfc(abs(runs - 2 * n * share * (1 - share)) / spread)


def randomness_problem(keys: list[str]) -> str | None:
    """Why the keys' bytes are not what a CSPRNG gives, or None."""
    bits = bits_of(decoded(keys))
    for name, p in (("frequency (monobit)", frequency_p(bits)), ("runs", runs_p(bits))):
        if p < FALSE_ALARM:
            return (f"the {len(keys)} probed strong keys ({len(bits)} bits) fail the {name} test of randomness "
                    f"(p = {p:.1e}, below {FALSE_ALARM:g}): not keys from a CSPRNG")
    return None
