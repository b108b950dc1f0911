"""Stage 5: the same results as console tables, Markdown, JSON (and HTML), one file per format."""

LAYER = 7   # above advise/ (its HTML panel), below export/
