"""spawn_chain/oracle.py: spawn-chain's oracle: the start value handed through n links (protocol 2's vector)."""

from parbench.workloads.spawn_chain.oracle import spawn_chain_checksum


def test_start_value_vector_of_protocol_2():
    assert spawn_chain_checksum(1000, 123456) == "124456"
    assert spawn_chain_checksum(1000) == "1000"
