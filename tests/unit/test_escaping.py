"""escaping.py: one escaping function per output format for outside text, and the console that
shows every control character as an escape."""
import csv
import io
import json

import pytest

from parbench import escaping
from parbench.escaping import (SafeConsole, asciidoc_cell, asciidoc_monospace, csv_cell, html_text,
                               is_valid_unicode, json_text, markdown_cell, markdown_code_span, one_line,
                               org_cell, org_verbatim, sanitised, styled)

ESCAPE = "\x1b[2J"      # clear the screen


def test_control_characters_are_shown_as_escapes_but_newlines_and_tabs_stay():
    assert sanitised(f"a{ESCAPE}b\x07\tc\nd") == "a\\x1b[2Jb\\x07\tc\nd"


def test_c1_controls_del_and_unicode_line_separators_are_escaped_too():
    assert sanitised("\x9b\x7f\u2028") == "\\x9b\\x7f\\u2028"


def test_a_lone_surrogate_becomes_the_replacement_character():
    assert sanitised("a\ud800b") == "a\ufffdb"
    assert not is_valid_unicode("a\ud800b") and is_valid_unicode("é✓")


def test_one_line_shows_line_breaks_as_backslash_escapes():
    assert one_line("a\r\nb") == "a\\r\\nb"


def test_a_markdown_cell_escapes_pipes_backticks_backslashes_and_html():
    assert markdown_cell("a|b`c\\d<i>") == "a\\|b\\`c\\\\d&lt;i&gt;"


def test_a_markdown_cell_keeps_a_newline_from_breaking_its_row():
    assert "\n" not in markdown_cell("row\n# heading")


def test_a_markdown_code_span_is_fenced_by_more_backticks_than_it_holds():
    assert markdown_code_span("echo ``x`` y") == "```echo ``x`` y```"


def test_a_markdown_code_span_is_padded_where_it_starts_or_ends_with_a_backtick():
    assert markdown_code_span("`a") == "`` `a ``"
    assert markdown_code_span("a|b") == "`a\\|b`"


def test_an_org_cell_shows_a_pipe_as_the_vert_entity():
    assert org_cell("a|b\n") == "a\\vert{}b\\n"


def test_org_verbatim_fences_plain_text_and_falls_back_where_verbatim_cannot_hold_it():
    assert org_verbatim("sleep 1") == "=sleep 1="
    assert org_verbatim("a=b") == "a=b" and org_verbatim(" x") == " x" and org_verbatim("") == ""
    assert org_verbatim("a|b") == "a\\vert{}b"


def test_asciidoc_cells_escape_pipes_and_monospace_falls_back_to_a_passthrough_for_backticks():
    assert asciidoc_cell("a|b") == "a\\|b"
    assert asciidoc_monospace("ls -l") == "`ls -l`"
    assert asciidoc_monospace("echo `x` $$") == "$$echo `x` $\\x24$$"


@pytest.mark.parametrize("text", ["=1+1", "+1", "-1", "@SUM(A1)", "\tx"])
def test_a_csv_cell_a_spreadsheet_would_evaluate_is_made_text(text):
    assert str(csv_cell(text)).startswith("'")


def test_a_csv_cell_keeps_numbers_and_blanks_non_finite_ones():
    assert (csv_cell(3), csv_cell(2.5), csv_cell(float("nan")), csv_cell(float("inf"))) == (3, 2.5, "", "")
    assert csv_cell(True) is True and csv_cell(None) is None


def test_a_carriage_return_in_a_csv_cell_is_shown_as_an_escape_and_cannot_split_the_row():
    assert csv_cell("\rx") == "\\rx"
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow([csv_cell("a\rb"), csv_cell("c\nd")])
    assert list(csv.reader(io.StringIO(out.getvalue()))) == [["a\\rb", "c\nd"]]


def test_html_text_escapes_tags_and_quotes_and_controls():
    assert html_text("<script>\"x\"'\x1b") == "&lt;script&gt;&quot;x&quot;&#x27;\\x1b"
    assert html_text("'", quote=False) == "&#x27;"


def test_json_text_writes_non_finite_numbers_as_null_and_lone_surrogates_as_replacements():
    import numpy as np
    document = {"a": float("nan"), "b": [float("inf"), "x\ud800"], 3: np.float64(1.5), "t": (1, True, None)}
    assert json.loads(json_text(document)) == {"a": None, "b": [None, "x\ufffd"], "3": 1.5, "t": [1, True, None]}


def test_json_text_writes_any_other_object_as_its_text():
    from pathlib import PurePosixPath
    assert json.loads(json_text({"p": PurePosixPath("/tmp/x")})) == {"p": "/tmp/x"}


def test_styled_text_is_sanitised_and_never_read_as_markup():
    text = styled("[bold]x[/bold]", (f"red{ESCAPE}", "red"))
    assert text.plain == "[bold]x[/bold]red\\x1b[2J"
    assert any(span.style == "red" for span in text.spans)


def test_the_safe_console_prints_outside_control_characters_as_escapes():
    out = io.StringIO()
    console = SafeConsole(file=out, force_terminal=False, width=80, **escaping.CONSOLE_OPTIONS)
    console.print(f"stderr: {ESCAPE}\x07 [/opt/vm/image.bin]")
    assert out.getvalue() == "stderr: \\x1b[2J\\x07 [/opt/vm/image.bin]\n"


def test_the_safe_console_escapes_controls_inside_a_table_cell():
    from rich.table import Table
    table = Table()
    table.add_column("name")
    table.add_row(f"x{ESCAPE}")
    out = io.StringIO()
    SafeConsole(file=out, force_terminal=False, width=80, **escaping.CONSOLE_OPTIONS).print(table)
    assert "\x1b" not in out.getvalue() and "\\x1b[2J" in out.getvalue()


BIDI_NAME = "x\u202egnp.exe"     # shown by a terminal as "xexe.png"


def test_format_characters_bidi_overrides_and_zero_width_ones_are_shown_as_escapes():
    assert sanitised(f"{BIDI_NAME} a\u200bb \u2066i\u2069 \ufeff") == "x\\u202egnp.exe a\\u200bb \\u2066i\\u2069 \\ufeff"


def test_every_format_character_of_this_python_s_unicode_is_invisible_to_the_boundary():
    import sys
    import unicodedata
    missed = [hex(c) for c in range(sys.maxunicode + 1)
              if unicodedata.category(chr(c)) in ("Cf", "Zl", "Zp") and not escaping.INVISIBLE.match(chr(c))]
    assert missed == []


def test_letters_emoji_and_accents_stay_as_written():
    assert sanitised("é✓😀 ña") == "é✓😀 ña"


@pytest.mark.parametrize("render", [markdown_cell, markdown_code_span, org_cell, org_verbatim, asciidoc_cell,
                                    asciidoc_monospace, csv_cell, html_text, one_line])
def test_every_human_readable_format_shows_a_bidi_override_as_an_escape(render):
    assert "\u202e" not in str(render(BIDI_NAME)) and "\\u202e" in str(render(BIDI_NAME))


def test_the_safe_console_escapes_a_bidi_override_inside_a_table_cell():
    from rich.table import Table
    table = Table()
    table.add_column("model")
    table.add_row(BIDI_NAME)
    out = io.StringIO()
    SafeConsole(file=out, force_terminal=False, width=80, **escaping.CONSOLE_OPTIONS).print(table)
    assert "\u202e" not in out.getvalue() and "x\\u202egnp.exe" in out.getvalue()
