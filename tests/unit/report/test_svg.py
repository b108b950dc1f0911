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


def test_a_long_title_breaks_onto_a_second_line_rather_than_being_cut():
    from parbench.report.svg import title_lines
    title = "Speedup vs workers — /a/rather/long/path/to/the/program --with-flags {threads} · level=9"
    lines = title_lines(560, title)
    assert len(lines) == 2 and " ".join(lines) == title
    assert title_lines(560, "Speedup vs workers") == ["Speedup vs workers"]


def test_long_legend_names_take_a_row_each_and_are_cut_to_the_plot_with_the_whole_name_kept():
    from parbench.report.svg import Axis, Series, line_plot
    long = "/tmp/a/very/long/path/to/a/command " * 4 + "median"
    plot = line_plot("t", Axis("x"), Axis("y"), [Series(long, [(1, 1), (2, 2)]), Series("short", [(1, 2), (2, 1)])])
    legends = re.findall(r'<text x="([\d.]+)" y="([\d.]+)"[^>]*class="legend"([^>]*)>([^<]*)</text>', plot)
    assert len(legends) == 2 and legends[0][0] == legends[1][0] and legends[0][1] != legends[1][1]   # one column
    assert "…" in legends[0][3] and legends[0][3].endswith("command median") and legends[0][3].startswith("/tmp/a/")
    assert len(legends[0][3]) * 6.2 <= 560 - 88 and "data-full=" in legends[0][2]
    two = line_plot("t", Axis("x"), Axis("y"), [Series("a", [(1, 1)]), Series("b", [(1, 2)])])
    xs = re.findall(r'<text x="([\d.]+)" y="([\d.]+)"[^>]*class="legend"', two)
    assert xs[0][1] == xs[1][1] and xs[0][0] != xs[1][0]                      # short names: two a row


def test_points_with_an_interval_get_error_bars_and_a_band_is_shaded():
    from parbench.report.svg import Axis, Series, line_plot
    plot = line_plot("t", Axis("x"), Axis("y"), [
        Series("measured", [(1, 1.0), (2, 1.5)], errors=[(1.0, 1.0), (1.3, 1.7)]),
        Series("f's CI", [(1, 1.0), (2, 1.2)], "band", upper=[(1, 1.0), (2, 1.8)])])
    assert plot.count('class="mark errorbar"') == 2 and plot.count('class="mark band"') == 1
