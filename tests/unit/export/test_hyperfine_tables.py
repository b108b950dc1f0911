"""export/hyperfine_tables.py: hyperfine's summary table in Markdown, AsciiDoc and org-mode, cell
for cell: Command, Mean ± σ, Min, Max in one unit, and the speed relative to the fastest mean."""
import unit_records
from unit_records import two_models

from parbench.export.base import Report
from parbench.export.hyperfine_tables import (ASCIIDOC, ASCIIDOC_EXPORTER, MARKDOWN, MARKDOWN_EXPORTER, ORGMODE,
                                              table)

MS = 1_000_000


def _command(command: str, times_ns: tuple[int, ...]):
    return unit_records.case_run(command, "exec", times=(times_ns,), workload="exec", runtime="exec")


def _two_sleeps():
    """Two commands of one `exec`, the second twice as fast, each timed three times."""
    return unit_records.record([_command("sleep 0.2", (200 * MS, 210 * MS, 220 * MS)),
                                _command("sleep 0.1", (100 * MS, 105 * MS, 110 * MS))], kind="exec")


def _hyperfines_cells(markdown: str) -> list[str]:
    """Each row of a Markdown table cut to hyperfine's five columns (the median's follow)."""
    return ["|".join(row.split("|")[:6]) + "|" for row in markdown.splitlines()[2:]]


def test_markdown_is_hyperfines_table_then_the_median_and_the_range_it_is_known_within():
    assert table(MARKDOWN, [Report(_two_sleeps())]) == (
        "| Command | Mean [ms] | Min [ms] | Max [ms] | Relative | Median [ms] | Interval of the median [ms] |\n"
        "|:---|---:|---:|---:|---:|---:|---:|\n"
        "| `sleep 0.2` | 210.0 ± 10.0 | 200.0 | 220.0 | 2.00 ± 0.13 | 210.0 | 200.0 – 220.0 (range of 3 runs) |\n"
        "| `sleep 0.1` | 105.0 ± 5.0 | 100.0 | 110.0 | 1.00 | 105.0 | 100.0 – 110.0 (range of 3 runs) |\n")


def test_from_ten_runs_markdowns_interval_of_the_median_is_its_95_percent_ci():
    record = unit_records.record([_command("sleep 0.1", tuple(100 * MS + i * MS for i in range(12)))], kind="exec")
    [row] = table(MARKDOWN, [Report(record)]).splitlines()[2:]
    low, high = record.results[0].stats.median_ci_ns
    assert row.endswith(f"| 105.5 | {low / MS:.1f} – {high / MS:.1f} (95% CI) |")


def test_asciidoc_aligns_its_columns_in_the_header_and_closes_the_table():
    assert table(ASCIIDOC, [Report(_two_sleeps())]) == (
        '[cols="<,>,>,>,>"]\n|===\n'
        "| Command \n| Mean [ms] \n| Min [ms] \n| Max [ms] \n| Relative \n\n"
        "| `sleep 0.2` \n| 210.0 ± 10.0 \n| 200.0 \n| 220.0 \n| 2.00 ± 0.13 \n\n"
        "| `sleep 0.1` \n| 105.0 ± 5.0 \n| 100.0 \n| 110.0 \n| 1.00 \n"
        "|===\n")


def test_org_mode_writes_commands_verbatim():
    assert table(ORGMODE, [Report(_two_sleeps())]) == (
        "| Command  |  Mean [ms] |  Min [ms] |  Max [ms] |  Relative |\n"
        "|--+--+--+--+--|\n"
        "| =sleep 0.2=  |  210.0 ± 10.0 |  200.0 |  220.0 |  2.00 ± 0.13 |\n"
        "| =sleep 0.1=  |  105.0 ± 5.0 |  100.0 |  110.0 |  1.00 |\n")


def test_the_time_unit_option_is_used_and_sort_by_mean_puts_the_fastest_first():
    record = _two_sleeps()
    record.options.update(time_unit="second", sort="mean-time")
    rows = _hyperfines_cells(table(MARKDOWN, [Report(record)]))
    assert rows == ["| `sleep 0.1` | 0.105 ± 0.005 | 0.100 | 0.110 | 1.00 |",
                    "| `sleep 0.2` | 0.210 ± 0.010 | 0.200 | 0.220 | 2.00 ± 0.13 |"]


def test_without_a_time_unit_the_first_commands_mean_chooses_it():
    assert "Mean [s]" in table(MARKDOWN, [Report(unit_records.record([_command("a", (2000 * MS,))]))])
    assert "Mean [µs]" in table(MARKDOWN, [Report(two_models())])


def test_a_single_run_has_no_spread_and_a_case_is_named_by_its_label():
    assert _hyperfines_cells(table(MARKDOWN, [Report(unit_records.record([_command("one", (2000 * MS,))]))])) == [
        "| `one` | 2.000 | 2.000 | 2.000 | 1.00 |"]
    rows = table(MARKDOWN, [Report(two_models())]).splitlines()[2:]
    assert [row.split(" | ")[0] for row in rows] == ["| `rt seq`", "| `rt pool ×2`"]     # the crash has no row


def test_against_a_fastest_of_zero_the_ratio_is_infinite_as_hyperfine_prints_it():
    record = unit_records.record([_command("true", (0, 0, 0)), _command("sleep 0.1", (100 * MS, 100 * MS, 110 * MS))],
                                 kind="exec")
    relative = [row.rsplit(" | ", 1)[1] for row in _hyperfines_cells(table(MARKDOWN, [Report(record)]))]
    assert relative == ["1.00 |", "inf ± NaN |"]


def test_the_exporters_are_named_as_the_command_line_takes_them():
    assert (MARKDOWN_EXPORTER.name, ASCIIDOC_EXPORTER.name) == ("hyperfine-markdown", "asciidoc")
    assert MARKDOWN_EXPORTER.render([Report(_two_sleeps())]) == table(MARKDOWN, [Report(_two_sleeps())])
