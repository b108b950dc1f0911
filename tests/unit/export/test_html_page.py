"""export/html_page.py: one self-contained page (no request leaves it)."""
import re

from unit_records import two_models

from parbench.export import html_page
from parbench.export.base import Report


def test_the_page_is_whole_and_loads_nothing_from_elsewhere():
    page = html_page.render([Report(two_models())])
    assert page.lstrip().lower().startswith("<!doctype html") and page.rstrip().endswith("</html>")
    assert "rt pool ×2" in page and "it fell over" in page
    assert not re.search(r"""(src|href)=["']?https?://""", page)


def test_a_name_from_outside_is_escaped():
    record = two_models()
    record.results[2].run.reason = "<script>alert(1)</script>"
    assert "<script>alert(1)" not in html_page.render([Report(record)])
