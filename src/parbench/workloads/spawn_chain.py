"""spawn-chain (seed 003): n units in a chain pass one integer along; the answer is n."""
from parbench import oracle
from parbench.workloads.params import Integer

PARAMS = {"n": Integer(0, 10 ** 9, "a chain length")}
SWEPT_PARAM = "n"
ORDER = 4


def expected_checksum(params) -> str:
    return oracle.spawn_chain_checksum(int(params["n"]))


def expected_items(params) -> int:
    return int(params["n"])
