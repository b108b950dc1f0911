"""workloads/params.py: every value a user passes, checked against its type before a run starts."""
import pytest

from parbench.workloads.params import Anything, Choice, Integer, ParamError


def test_an_integer_in_its_range_is_accepted_at_both_ends():
    size = Integer(1, 100, "a size")
    assert [size.check("size", v) for v in (1, 50, 100)] == [1, 50, 100]


@pytest.mark.parametrize("value, shown", [(0, "got 0"), (101, "got 101"), (10 ** 6, "got 1,000,000")])
def test_an_integer_out_of_range_names_the_range_and_the_value(value, shown):
    with pytest.raises(ParamError) as error:
        Integer(1, 100, "a size").check("size", value)
    assert str(error.value) == f"--param size wants a size from 1 to 100, {shown}"


@pytest.mark.parametrize("value", ["12", 1.5, True, None])
def test_a_value_that_is_not_an_integer_is_refused_with_its_repr(value):
    with pytest.raises(ParamError, match=f"got {value!r}".replace("(", r"\(").replace(".", r"\.")):
        Integer().check("n", value)


def test_a_choice_accepts_its_values_only():
    cipher = Choice(("bitwise", "table"))
    assert cipher.check("cipher", "table") == "table"
    with pytest.raises(ParamError, match="--param cipher wants one of bitwise, table, got 'Table'"):
        cipher.check("cipher", "Table")


def test_anything_is_passed_on_as_it_is_but_never_empty():
    assert Anything().check("chunk", "4k") == "4k" and Anything().check("chunk", 0) == 0
    with pytest.raises(ParamError, match="--param chunk wants a value, got nothing"):
        Anything().check("chunk", "")
