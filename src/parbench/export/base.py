"""The interface every export format implements: the reports it reads, the Exporter it is."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from parbench.records import RunRecord


class NotExportable(ValueError):
    """What a format cannot hold of these reports (pyperf has no time of 0), in one line: the
    export is not written rather than written in a shape its readers refuse."""


@dataclass
class Report:
    """One stored run with its statistics recomputed and its analyses: what every format reads."""
    record: RunRecord
    analyses: list = field(default_factory=list)


@dataclass(frozen=True)
class Exporter:
    name: str                                   # --export-<name>
    extension: str
    description: str
    render: Callable[[list[Report]], str]
