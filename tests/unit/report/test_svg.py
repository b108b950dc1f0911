"""report/svg.py: a runtime's colour is derived from its name, the same in every report."""
import re

from parbench.measure import runtimes
from parbench.report.svg import colour_of


def test_a_name_has_one_colour_in_every_process_and_it_is_a_css_colour():
    assert colour_of("squeak") == colour_of("squeak")
    assert re.fullmatch(r"hsl\(\d{1,3}, 75%, (30|42|54)%\)", colour_of("a runtime added tomorrow"))


def test_the_runtimes_of_this_project_each_get_a_colour_of_their_own():
    names = sorted(runtimes.load_all())
    assert len({colour_of(name) for name in names}) == len(names)
