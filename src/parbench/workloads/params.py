"""Typed workload parameters: every value a user passes is checked here before any run starts."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


class ParamError(ValueError):
    """A param value that cannot be right; the message says what would be."""


@dataclass(frozen=True)
class Integer:
    minimum: int = 0
    maximum: int = 10 ** 12
    what: str = "an integer"

    def check(self, name: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ParamError(f"--param {name} wants {self.what} from {self.minimum:,} to {self.maximum:,}, "
                             f"got {value!r}")
        if not self.minimum <= value <= self.maximum:
            raise ParamError(f"--param {name} wants {self.what} from {self.minimum:,} to {self.maximum:,}, "
                             f"got {value:,}")
        return value


@dataclass(frozen=True)
class Choice:
    values: tuple[str, ...]

    def check(self, name: str, value: Any) -> str:
        if value not in self.values:
            raise ParamError(f"--param {name} wants one of {', '.join(self.values)}, got {value!r}")
        return value


@dataclass(frozen=True)
class Anything:
    """A value the harness passes on as it is (a model's own param such as `chunk`): the
    implementation checks it and answers exit 2 if it is wrong."""

    def check(self, name: str, value: Any) -> Any:
        if value == "":
            raise ParamError(f"--param {name} wants a value, got nothing")
        return value
