"""echo_server/oracle.py: the right replies and their digest, straight from the spec."""
from parbench.workloads.digest import fnv1a64, order_free_digest, splitmix64_bytes
from parbench.workloads.echo_server.oracle import echo_checksum, replies


def test_a_reply_is_the_header_then_the_payload_reversed():
    # SplitMix64 bytes(1, 0, 16) = c15c0289ec2d0a9167ec8e65a18debbe (workloads/README.md)
    reply = replies(seed=1, first=0, count=1, length=16)[0].tobytes()
    assert reply == bytes.fromhex("00000000" "00000010") + bytes.fromhex("c15c0289ec2d0a9167ec8e65a18debbe")[::-1]


def test_the_header_holds_the_request_index_big_endian():
    reply = replies(seed=7, first=0x01020304, count=1, length=0)[0].tobytes()
    assert reply == bytes.fromhex("01020304" "00000000")


def test_the_digest_is_the_order_free_digest_of_connection_request_and_reply_hash():
    connections, requests, length, seed = 3, 4, 5, 42
    strings = []
    for c in range(connections):
        for k in range(requests):
            i = c * requests + k
            reply = i.to_bytes(4, "big") + length.to_bytes(4, "big") + splitmix64_bytes(seed, i, length)[::-1]
            strings.append(f"{c}:{k}:{fnv1a64(reply):016x}".encode())
    assert echo_checksum(connections, requests, length, seed) == order_free_digest(strings)


def test_another_seed_gives_another_digest():
    assert echo_checksum(2, 2, 8, 1) != echo_checksum(2, 2, 8, 2)
