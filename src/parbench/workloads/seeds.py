"""The shape of a seed article's published figures, which each workload's package fills in
(`SEED`): the runtime, model and params that reproduce each figure here (docs/seeds.md)."""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Figure:
    """One number an article published, and the case that measures the same thing here."""
    label: str
    runtime: str
    model: str
    scale_param: str                     # the param that sets the amount of work (count, size, n…)
    scale_value: int | str
    per_item: float                      # items the published value is divided by (1e6 keys…)
    item: str                            # "key", "MB", "document", "process", "coroutine"
    published: float                     # ns for time figures, bytes for memory figures
    match: dict = field(default_factory=dict)   # other params the case must have (cipher, sleep_ms)
    quantity: str = "time"               # time | memory | limit
    limit_text: str = ""
    items_per_unit: float = 1            # e.g. 10 switches per coroutine: items = scale value × this
    command_params: dict = field(default_factory=dict)   # flags the command needs but a match does not


@dataclass(frozen=True)
class Seed:
    number: str
    workload: str
    title: str
    system: str
    cores: int
    figures: tuple[Figure, ...]
    point: str
    note: str = ""                       # why this machine's figure differs, beyond cores and CPU


MB = 1_000_000
