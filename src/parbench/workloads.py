"""The machine-readable workload specs (workloads/*.toml): params, scales, verification inputs."""
from __future__ import annotations

import itertools
import tomllib
from dataclasses import dataclass, field
from typing import Any

from parbench.project import WORKLOADS_DIR

SCALES = ("smoke", "quick", "seed")


class SpecError(ValueError):
    """A request names something the specs do not have; the message lists what is valid."""


@dataclass(frozen=True)
class Workload:
    name: str
    title: str
    spec: str
    items: str
    params: tuple[str, ...]
    scales: dict[str, dict[str, Any]]
    verify: dict[str, Any]
    input_param: str | None = None
    one_repetition_per_process: bool = False
    seq_only_when: dict[str, Any] = field(default_factory=dict)   # params where `seq` makes sense

    def parameter_sets(self, scale: str) -> list[dict[str, Any]]:
        """The scale's params with every list expanded into its own set (a product)."""
        return expand(self.scales[scale])

    def verify_sets(self) -> list[dict[str, Any]]:
        return expand(self.verify)


def expand(params: dict[str, Any]) -> list[dict[str, Any]]:
    names = list(params)
    choices = [v if isinstance(v, list) else [v] for v in params.values()]
    return [dict(zip(names, combo)) for combo in itertools.product(*choices)]


def load_all() -> dict[str, Workload]:
    workloads = {}
    for path in sorted(WORKLOADS_DIR.glob("*.toml")):
        with open(path, "rb") as f:
            raw = tomllib.load(f)
        workloads[raw["name"]] = Workload(
            name=raw["name"], title=raw["title"], spec=raw["spec"], items=raw["items"],
            params=tuple(raw["params"]), scales=raw["scales"], verify=raw["verify"],
            input_param=raw.get("input_param"),
            one_repetition_per_process=raw.get("one_repetition_per_process", False),
            seq_only_when=raw.get("seq_only_when", {}))
    return workloads


def choose(names: tuple[str, ...] | list[str], valid, what: str) -> list[str]:
    """The requested names, all of them if none, or a SpecError listing the valid ones."""
    valid = list(valid)
    for name in names:
        if name not in valid:
            raise SpecError(f"unknown {what} '{name}'; valid: {', '.join(valid)}")
    return list(names) or valid


def parse_param_overrides(pairs: tuple[str, ...]) -> dict[str, Any]:
    """`--param k=v` → {k: v}; v may be a comma list (a product of cases), ints stay ints."""
    out: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise SpecError(f"--param wants NAME=VALUE, got '{pair}'")
        name, value = pair.split("=", 1)
        name = name.strip().replace("-", "_")
        values = [_typed(v) for v in value.split(",")] if "," in value else _typed(value)
        out[name] = values
    return out


def _typed(text: str) -> Any:
    try:
        return int(text, 0)
    except ValueError:
        return text
