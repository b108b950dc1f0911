"""The question an advice answers: one workload, its swept parameter at the user's value (with
its unit: 40MB, 200k), the other parameters held fixed, the cores, and what to rank by."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from parbench.workloads import Workload
from parbench.workloads.params import ParamError


# Which figure the advice answers (issue 44): the steady median, what a long-running process (a
# server) pays per repetition once settled; or each process's first repetition, what a
# short-lived command pays, its JIT and caches cold.
STEADY_STATE, FIRST_RUN = "steady-state", "first-run"
FIGURES = (STEADY_STATE, FIRST_RUN)


class QuestionError(ValueError):
    """A question that cannot be asked of these workloads; the message says what would do."""


# Decimal for plain suffixes and for B (40MB is 40,000,000 bytes, as a disk's label says);
# binary only when spelled so (MiB).
UNITS = {"": 1, "k": 10 ** 3, "m": 10 ** 6, "g": 10 ** 9, "t": 10 ** 12,
         "kb": 10 ** 3, "mb": 10 ** 6, "gb": 10 ** 9, "tb": 10 ** 12, "b": 1,
         "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}


@dataclass(frozen=True)
class Question:
    workload: str
    param: str                              # the workload's swept parameter
    value: int                              # the user's value of it
    context: dict[str, Any] = field(default_factory=dict)   # the other params the user fixed
    cores: int = 1
    runtimes: tuple[str, ...] = ()
    families: tuple[str, ...] = ()
    by_memory: bool = False
    answers: str = STEADY_STATE             # the figure ranked: STEADY_STATE or FIRST_RUN


def parse_amount(name: str, text: str) -> int:
    """'40MB' → 40000000, '200k' → 200000, '1.5MiB' → 1572864; QuestionError otherwise."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", text)
    unit = match.group(2).lower() if match else ""
    if not match or unit not in UNITS:
        raise QuestionError(f"--param {name} wants a number with an optional unit (40MB, 16MiB, 200k), "
                            f"got {ascii(text)[:60]}")
    return int(round(float(match.group(1)) * UNITS[unit]))


def workload_for(name: str | None, pairs: dict[str, str], workloads: dict[str, Workload]) -> Workload:
    """The named workload, or the only one whose swept parameter the question sets."""
    if name is not None:
        if name not in workloads:
            raise QuestionError(f"unknown workload '{name}'; valid: {', '.join(workloads)}")
        return workloads[name]
    fitting = [w for w in workloads.values() if w.swept_param in pairs]
    if len(fitting) != 1:
        raise QuestionError("advise needs --workload NAME (" + ", ".join(
            f"{w.name}: --param {w.swept_param}=…" for w in workloads.values() if w.swept_param) + ")")
    return fitting[0]


def split_pairs(params: tuple[str, ...]) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for pair in params:
        name, equals, value = pair.partition("=")
        if not equals or not name.strip() or not value.strip():
            raise QuestionError(f"--param wants NAME=VALUE, got {ascii(pair)[:60]}")
        pairs[name.strip().replace("-", "_")] = value.strip()
    return pairs


def ask(workloads: dict[str, Workload], workload: str | None, params: tuple[str, ...], cores: int,
        runtimes: tuple[str, ...] = (), families: tuple[str, ...] = (), kernel: str | None = None,
        by_memory: bool = False, answers: str = STEADY_STATE) -> Question:
    """The question from the command line's words; QuestionError names the first wrong one."""
    if answers not in FIGURES:
        raise QuestionError(f"--for wants {' or '.join(FIGURES)}, got {ascii(answers)[:60]}")
    if by_memory and answers == FIRST_RUN:
        raise QuestionError("--memory ranks by peak memory, which has no first-run figure of its own: "
                            "leave out --for first-run")
    pairs = split_pairs(params)
    chosen = workload_for(workload, pairs, workloads)
    swept = chosen.swept_param
    if swept is None or swept not in pairs:
        raise QuestionError(f"advise on {chosen.name} needs --param {swept}=VALUE (the value you will run it at)")
    if kernel is not None:
        if "kernel" not in chosen.params:
            raise QuestionError(f"{chosen.name} has no kernel classes (--kernel does not apply)")
        pairs.setdefault("kernel", kernel)
    value = parse_amount(swept, pairs.pop(swept))
    if value < 1:
        # Every law advise fits runs through a logarithm or a ratio of the value.
        raise QuestionError(f"--param {swept} wants a value of at least 1 to predict at, got {value}")
    unknown = [name for name in pairs if name not in chosen.params]
    if unknown:
        raise QuestionError(f"{chosen.name} has no parameter {unknown[0]}; its parameters: {', '.join(chosen.params)}")
    try:
        chosen.check_params({swept: value})
        context = chosen.check_params({name: _typed(text) for name, text in pairs.items()})
    except ParamError as error:
        raise QuestionError(str(error)) from None
    return Question(chosen.name, swept, value, context, cores, tuple(runtimes), tuple(families), by_memory,
                    answers)


def _typed(text: str) -> Any:
    return int(text) if text.isascii() and text.isdigit() else text
