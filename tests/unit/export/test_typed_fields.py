"""Exporters read typed fields, not string keys: outside json_format.py (the one module that builds
and reads the JSON dict), no module of export/ subscripts a value with a string literal or asks
`.get`, `.pop` or `.setdefault` for one. Strings inside the HTML page's JavaScript are text, not
Python lookups, and pass."""
import ast
from pathlib import Path

import parbench.export

EXPORT = Path(parbench.export.__file__).parent
BUILDS_THE_JSON = {"json_format.py"}
LOOKUPS = {"get", "pop", "setdefault"}


def _string(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def string_keys(source: str) -> list[str]:
    """Each lookup by a string literal in `source`, as "line: key"."""
    found = []
    for node in ast.walk(ast.parse(source)):
        key = None
        if isinstance(node, ast.Subscript):
            key = _string(node.slice)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in LOOKUPS
              and node.args):
            key = _string(node.args[0])
        if key is not None:
            found.append(f"{node.lineno}: {key!r}")
    return found


def test_no_exporter_but_the_json_one_looks_a_field_up_by_a_string_key():
    modules = sorted(p for p in EXPORT.rglob("*.py") if str(p.relative_to(EXPORT)) not in BUILDS_THE_JSON)
    assert len(modules) > 5
    found = [f"{p.relative_to(EXPORT)}:{where}" for p in modules for where in string_keys(p.read_text())]
    assert found == [], "look these up as typed fields (export/views.py, export/summary_row.py): " + ", ".join(found)


def test_the_check_catches_a_subscript_and_a_get_by_string():
    assert string_keys('r = d["mean"]\n') == ["1: 'mean'"]
    assert string_keys("x = m.get('cpu', '')\ny = m.pop('os')\n") == ["1: 'cpu'", "2: 'os'"]


def test_the_check_lets_through_lookups_by_name_and_strings_that_are_text():
    source = ('row = rows[i]\nvalue = extra[field.name]\ncolours.get(h, "#999")\n'
              'script = "<script>const r = data[\'mean\']; r.get(\'x\')</script>"\n')
    assert string_keys(source) == []
