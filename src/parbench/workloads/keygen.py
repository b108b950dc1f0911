"""keygen (seed 000): `count` random keys of `bytes` bytes, each Base32-encoded lower case."""
from parbench import oracle
from parbench.oracle_cache import cached
from parbench.workloads.params import Choice, Integer

PARAMS = {"count": Integer(1, 10 ** 9, "a key count"), "bytes": Integer(1, 1 << 20, "a key size in bytes"),
          "source": Choice(("strong", "seeded")), "seed": Integer(0, 2 ** 64 - 1)}
SWEPT_PARAM = "count"
ORDER = 1


def expected_checksum(params) -> str:
    count, size, source, seed = (int(params["count"]), int(params["bytes"]), params["source"],
                                 int(params.get("seed", 0)))
    if source == "strong":
        return oracle.keygen_checksum(count, size, source, seed)        # lengths only: instant
    return cached("keygen", {"count": count, "bytes": size, "seed": seed},
                  lambda: oracle.keygen_checksum(count, size, source, seed))


def expected_items(params) -> int:
    return int(params["count"])
