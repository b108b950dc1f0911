"""The JSON export: every record and statistic of a run, for other tools."""
from __future__ import annotations

import dataclasses
import json

from parbench.records import RunRecord


def render(record: RunRecord, analyses: list | None = None) -> str:
    data = dataclasses.asdict(record)
    data["analyses"] = [{"kind": k, "subject": s, "result": r} for k, s, r in (analyses or [])]
    return json.dumps(data, indent=1, default=str)
