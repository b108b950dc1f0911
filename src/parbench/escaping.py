"""The one escaping function per output format, for every string that comes from outside
(stderr tails, names, params, commands, paths, runtime versions, journal and export fields) and
reaches a console, Markdown, org-mode, AsciiDoc, CSV or HTML; and `SafeConsole`, the console
every report is printed with, which shows any control character in what it prints as an escape."""
from __future__ import annotations

import html
import json
import math
import re
from typing import Iterable

from rich.console import Console
from rich.segment import Segment
from rich.text import Text

# The console is plain text: parbench's consoles are made with markup off (see `console`), so a
# runtime's `cannot load [/opt/vm/image.bin]` prints as written; parbench's own colours are
# given as styles, never as markup spliced around outside text.
CONSOLE_OPTIONS = {"markup": False}


class SafeConsole(Console):
    """A console whose every printed character is text: control characters (ESC, BEL, a lone CR,
    C1 codes) and invisible ones (bidi overrides, zero-width spaces) are shown as escapes (`\\x1b`) whatever prints them — a table cell, a message, a
    stderr tail — so no string from outside can clear the screen, retitle the terminal or move
    the cursor. parbench's own colours are rich styles, applied after this; line breaks and tabs
    of its own layout stay. A newline inside one line's outside text is the caller's to show
    (`one_line`)."""

    def render_str(self, text: str, **options) -> Text:
        return super().render_str(sanitised(text), **options)

    def render(self, renderable, options=None) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control or not INVISIBLE.search(segment.text):
                yield segment
            else:
                yield Segment(sanitised(segment.text), segment.style)


def styled(*parts: str | tuple[str, str]) -> Text:
    """A console line from plain strings and (text, style) pairs; nothing in them is markup."""
    return Text.assemble(*[(sanitised(p[0]), p[1]) if isinstance(p, tuple) else sanitised(p) for p in parts])


# Unicode's category Cf (Unicode 15): the bidi embeddings, overrides and isolates (U+202A…U+202E,
# U+2066…U+2069) that reorder what follows them, so `x\u202egnp.exe` shows as `xexe.png`; the
# zero-width ones (U+200B…U+200D, U+2060, U+FEFF) that make two names look alike; soft hyphens,
# tags. Written out because deriving it from unicodedata costs every command 90 ms at start;
# tests/unit/test_escaping.py holds it to the running Python's tables.
_FORMAT_CHARACTERS = (r"\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
                      r"\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
                      r"\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0001"
                      r"\U000e0020-\U000e007f")


# Every invisible character: each C0 and C1 control but the line feed and the tab of a layout;
# DEL; the Unicode line and paragraph separators; every format character (category Cf).
INVISIBLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029" + _FORMAT_CHARACTERS + "]")
_SURROGATE = re.compile(r"[\ud800-\udfff]")


def is_valid_unicode(text: str) -> bool:
    """False for a string holding a lone surrogate (bytes that were not UTF-8, or a JSON
    `\\ud800`), which no UTF-8 file, store or terminal can take."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def sanitised(text: object) -> str:
    """Text any terminal and any UTF-8 file can take: no lone surrogate, no control sequence
    (a runtime's stderr must not move the cursor or recolour the terminal), no invisible
    character that reorders or hides text (each shown as `\\u202e`)."""
    text = _SURROGATE.sub("\ufffd", str(text))
    return INVISIBLE.sub(lambda m: ascii(m.group())[1:-1], text)


def one_line(text: object) -> str:
    """Text for a one-line message: sanitised, and its line breaks shown as \\n and \\r."""
    return sanitised(str(text).replace("\r", "\\r").replace("\n", "\\n"))


def console(text: object) -> str:
    """Outside text for a console made with CONSOLE_OPTIONS (markup off): sanitised only."""
    return sanitised(text)


def markdown_cell(text: object) -> str:
    """One Markdown table cell: control characters and line breaks shown as escapes (`\\n`),
    `|` escaped, HTML as entities, so a name can neither break its table nor open a heading, a
    link or a tag."""
    text = html.escape(one_line(text), quote=False)
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")


def markdown_code_span(text: object) -> str:
    """Text as a Markdown code span inside a table cell (hyperfine's `command` cell): shown
    literally, so `<script>` is text, not HTML; fenced by more backticks than any run inside it
    (CommonMark's rule) so a backtick cannot close it early; `|` escaped, which GFM honours even
    inside a code span of a table; control characters and line breaks shown as escapes."""
    text = one_line(text).replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall(r"`+", text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def org_cell(text: object) -> str:
    """One org-mode table cell: control characters and line breaks shown as escapes, and `|` as
    org's entity `\\vert{}` (org has no escape for `|` in a table: it always splits the cell)."""
    return one_line(text).replace("|", "\\vert{}")


def org_verbatim(text: object) -> str:
    """hyperfine's `=command=` cell; as a plain cell (`org_cell`) where verbatim cannot hold the
    text: an entity is not read inside `=…=`, and a `=` or an outer space would end it."""
    shown = one_line(text)
    if not shown or shown != shown.strip() or any(c in shown for c in "|="):
        return org_cell(text)
    return f"={shown}="


def asciidoc_cell(text: object) -> str:
    """One AsciiDoc table cell: control characters and line breaks shown as escapes, `|` as `\\|`."""
    return one_line(text).replace("|", "\\|")


def asciidoc_monospace(text: object) -> str:
    """hyperfine's `` `command` `` cell (AsciiDoc's literal monospace, read as written); a text
    holding a backtick, which would end it, goes in `$$…$$` (a passthrough that escapes HTML),
    where a `$$` of its own is shown as `$\\x24`."""
    cell = asciidoc_cell(text)
    if "`" not in cell:
        return f"`{cell}`"
    return "$$" + cell.replace("$$", "$\\x24") + "$$"


# A cell starting with one of these is a formula in Excel, LibreOffice and Google Sheets
# (OWASP's "CSV injection"); a leading apostrophe makes it text and is hidden by them.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """One CSV cell: numbers as they are (finite or empty), text that a spreadsheet would
    evaluate prefixed with an apostrophe."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else ""
    if isinstance(value, int):
        return value
    # A lone \r is a line break to CSV readers but not one the exporters' "\n" writer quotes.
    text = sanitised(value).replace("\r\n", "\n").replace("\r", "\n")
    return "'" + text if text.startswith(_FORMULA_START) else text


def html_text(text: object, quote: bool = True) -> str:
    """Text or an attribute value in the HTML report (quotes are always escaped; `quote` is
    there so that it stands in for html.escape)."""
    return html.escape(sanitised(text), quote=True)


def json_text(document: object, **dumps_options) -> str:
    """A JSON document as RFC 8259 has it: a non-finite number (NaN, Infinity) becomes null and
    a lone surrogate U+FFFD, so every JSON reader takes the export."""
    return json.dumps(_json_safe(document), allow_nan=False, **dumps_options)


def _json_safe(value: object) -> object:
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {_json_safe(str(k)): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if isinstance(value, (int, bool)) or value is None:
        return value
    if hasattr(value, "item"):                      # a numpy scalar
        return _json_safe(value.item())
    return _json_safe(str(value))
