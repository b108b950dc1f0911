"""machine_ceiling.py: the machine's own cheapest copy and hand-off, timed by machine_ceiling.c."""
import pytest

from parbench.measure import machine_ceiling


@pytest.fixture(scope="module", autouse=True)
def needs_the_program():
    assert machine_ceiling.binary() is not None, "machine_ceiling.c did not build (gcc is needed)"


def test_a_copy_takes_a_positive_time_that_grows_with_its_size():
    small, large = machine_ceiling.measure("copy", 4096), machine_ceiling.measure("copy", 32 << 20)
    assert 0 <= small < large


def test_a_handoff_chain_takes_a_positive_time():
    assert machine_ceiling.measure("handoff", 1000) > 0


def test_an_amount_the_program_cannot_take_gives_none():
    assert machine_ceiling.measure("copy", -1) is None          # no buffer of 2**64 - 1 bytes


def test_a_mode_the_program_does_not_know_gives_none():
    assert machine_ceiling.measure("copies", 1000) is None


def test_the_echo_ceiling_is_the_load_generator_against_the_reference_server():
    assert machine_ceiling.measure("echo", (20, 3, 64, 0)) > 0
