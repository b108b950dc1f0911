"""coroutine_swarm/oracle.py: coroutine-swarm's oracle against docs/workloads/coroutine-swarm.md and protocol 2's salted vectors."""

from parbench.workloads import digest as oracle
from parbench.workloads.coroutine_swarm import oracle as swarm_oracle


def test_coroutine_swarm_vector():
    assert swarm_oracle.coroutine_swarm_checksum(3, 10) == "1161d008ce58dc37"


def test_streamed_swarm_checksum_equals_the_plain_definition_across_digit_counts():
    plain = oracle.order_free_digest(f"{t}:{s}:{swarm_oracle.fizzbuzz(s)}".encode() for t in range(1234) for s in range(16))
    assert swarm_oracle.coroutine_swarm_checksum(1234, 16) == plain


def test_salted_vectors_of_protocol_2():
    assert swarm_oracle.coroutine_swarm_checksum(3, 10, 1000) == "bb33744708f665dd"
    assert swarm_oracle.coroutine_swarm_checksum(3, 10, 4294967295) == "2540eadf7cfb00ad"


def test_salted_stream_equals_the_plain_definition():
    salt = 98_765
    plain = oracle.order_free_digest(f"{t + salt}:{s}:{swarm_oracle.fizzbuzz(s)}".encode()
                                     for t in range(1100) for s in range(7))
    assert swarm_oracle.coroutine_swarm_checksum(1100, 7, salt) == plain


def test_fizzbuzz_of_the_spec_counts_zero_as_fizzbuzz():
    assert [swarm_oracle.fizzbuzz(i) for i in (0, 1, 3, 5, 7, 15, 30)] == [
        "FizzBuzz", "1", "Fizz", "Buzz", "7", "FizzBuzz", "FizzBuzz"]


def test_an_empty_swarm_digests_to_zero():
    assert swarm_oracle.coroutine_swarm_checksum(0, 10) == swarm_oracle.coroutine_swarm_checksum(5, 0) == "0" * 16
