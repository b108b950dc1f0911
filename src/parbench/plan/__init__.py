"""Stage 1, planning: from the user's request and a scale, the cases to run (cases.py) and what a
run of them needs beside the cases: its settings, its record, the runtimes' descriptions
(from_request.py)."""

LAYER = 4    # above measure/ (whose runtimes and settings it reads), below store/
