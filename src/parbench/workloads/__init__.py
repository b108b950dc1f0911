"""The workloads: each one's spec data (workloads/<name>.toml: scales, verification input) joined
with its package here (parbench/workloads/<name>/: typed params, inputs, the oracle, the proofs
of work each repetition owes, the seed's figures, its place in reports and the sweeps that suit
it). Adding a workload is one TOML file and one package; a TOML may name a module of its own
with `module = "dotted.path"` (the default is parbench.workloads.<name>). Nothing outside a
workload's package knows its name: the harness asks the package through `Workload`.
"""
from __future__ import annotations

import functools
import importlib
import itertools
import random
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

from parbench.project import WORKLOADS_DIR
from parbench.workloads import noop
from parbench.workloads.hooks import HookError, WorkloadHooks, hooks_of
from parbench.workloads.params import Anything, ParamError

LAYER = 2   # the workloads' knowledge: above analysis/, below everything that runs them

SCALES = ("smoke", "quick", "seed")

PROVEN = "✓"      # a verified answer that proves all the work its case names (Workload.proof_label)


class SpecError(ValueError):
    """A request names something the specs do not have; the message lists what is valid."""


# How to recompute a process's answer from what it left behind (a database it wrote), or None.
Recheck = Callable[[], str | None]


@dataclass(frozen=True)
class LineContext:
    """What a workload's proofs need to judge one line: the case, the variant it was given, the
    arguments the harness chose for the process (probe positions…), the model's family."""
    params: dict[str, Any]
    variant: int | None
    arguments: dict[str, Any]
    family: str


@dataclass(frozen=True)
class Workload:
    name: str
    title: str
    spec: str                      # the page that specifies it exactly (docs/workloads/<name>.md)
    items: str                     # the unit of `items` (keys, bytes, docs, units, tasks)
    scales: dict[str, dict[str, Any]]
    verify: dict[str, Any]
    module: ModuleType = field(repr=False, compare=False, default=None)
    one_repetition_per_process: bool = False
    seq_only_when: dict[str, Any] = field(default_factory=dict)   # params where `seq` makes sense
    # Per scale, the parameter set every runtime runs as it is (no runtime's size override), so
    # that one row of the summary puts every runtime side by side: the scale's params with these.
    common: dict[str, dict[str, Any]] = field(default_factory=dict)
    # The scales whose whole suite (no --workload named) includes it: echo-server's quick cases
    # take minutes per runtime, more than `make bench`'s 8 minutes allow, so it runs there when named.
    unnamed_scales: tuple[str, ...] = SCALES
    hooks: WorkloadHooks = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        # The module's hooks are read and checked here, once: a missing or misspelt hook is a
        # SpecError when the workload loads, never an AttributeError mid-run (workloads/hooks.py).
        try:
            object.__setattr__(self, "hooks", hooks_of(self.module, self.name))
        except HookError as error:
            raise SpecError(str(error)) from None

    @property
    def params(self) -> tuple[str, ...]:
        return tuple(self.hooks.params)

    @property
    def swept_param(self) -> str | None:
        """The param a size or task-count sweep varies."""
        return self.hooks.swept_param

    @property
    def order(self) -> int:
        """Where it stands in reports (the seeds' order)."""
        return self.hooks.order

    def verify_sets(self) -> list[dict[str, Any]]:
        return expand(self.verify)

    def check_params(self, params: dict[str, Any]) -> dict[str, Any]:
        """The params with each value checked against its type; ParamError says what is wrong."""
        return {name: self.hooks.params.get(name, Anything()).check(name, value)
                for name, value in params.items()}

    def expected_checksum(self, params: dict[str, Any], variant: int | None = None) -> str | None:
        """The oracle's answer for the case under one repetition's variant; None where only the
        form of the answer can be checked (answers drawn from a CSPRNG: `line_problem` checks them)."""
        return self.hooks.expected_checksum(params, variant)

    def variants(self, params: dict[str, Any], count: int) -> list[int] | None:
        """Up to `count` values, one per repetition, so that no repetition can reuse another's
        result: drawn afresh for each process from the operating system's CSPRNG, so that none
        repeats a sequence across processes or runs, nor can be read or predicted before the
        launcher writes it (protocol 4 writes only those it needs). The harness works out their
        answers after the process (oracle_cache keys them by input and variant, in the sealed
        oracle folder). None: the workload takes none (each process is fresh)."""
        choose_variants = self.hooks.variants
        if choose_variants is None:
            return None
        return [int(v) for v in choose_variants(params, count, random.SystemRandom())]

    def process_extras(self, params: dict[str, Any], rng) -> dict[str, Any]:
        """Arguments the harness chooses afresh for each process (positions to probe…)."""
        extras = self.hooks.process_extras
        return extras(params, rng) if extras else {}

    def line_problem(self, line: dict[str, Any], context: LineContext) -> str | None:
        """Why one line's evidence does not prove its work (beyond the checksum), or None."""
        check = self.hooks.line_problem
        return check(line, context) if check else None

    def process_problem(self, lines: list[dict[str, Any]], context: LineContext) -> str | None:
        """Why a process's lines together do not prove their work (repeated answers), or None."""
        check = self.hooks.process_problem
        return check(lines, context) if check else None

    def proof_label(self, params: dict[str, Any], family: str) -> str:
        """"✓" where a verified repetition proves all the work the case names, or what stands in
        its place where only part of it can be proven: "form checked" (keygen's strong keys, whose
        answer no oracle knows), "units unverified" (a chain whose units only it can count)."""
        label = self.hooks.proof_label
        return (label(params, family) if label else None) or PROVEN

    def unique_answers(self, params: dict[str, Any]) -> bool:
        """Whether no two repetitions of any process of the case may print the same checksum
        (answers drawn from a CSPRNG)."""
        unique = self.hooks.unique_answers
        return bool(unique and unique(params))

    def machine_ceiling(self, params: dict[str, Any]) -> tuple[str, str, Any] | None:
        """(name, reference mode, amount) of the machine's own ceiling for the case, measured by
        the harness's C reference programs (machine_ceiling.c; for mode "echo", the load generator
        against echo_reference.c, amount (connections, requests, len, wait_us)), or None where the
        workload has none."""
        ceiling = self.hooks.machine_ceiling
        return ceiling(params) if ceiling else None

    @property
    def seed(self):
        """The seed article's published figures (workloads.seeds.Seed), or None."""
        return self.hooks.seed

    @property
    def untimed_work(self) -> tuple[str, ...]:
        """The phases outside the timed region that hold work of its own here (a digest of
        megabytes, a ceiling, baselines); the time any other phase books is held to the
        unaccounted-time allowance (measure/proofs.py)."""
        return self.hooks.untimed_work

    @property
    def driver(self) -> str | None:
        """Who drives a process's repetitions where the launcher's feed does not: "load-generator"
        (echo-server: measure/echo_loop.py), None for the launcher's own feed."""
        return self.hooks.driver

    @property
    def sweeps(self) -> dict[str, str]:
        """The analyses that suit it and the sweep that measures each: {"crossover": "size"}."""
        return dict(self.hooks.sweeps)


    def expected_items(self, params: dict[str, Any]) -> int | None:
        return self.hooks.expected_items(params)

    def process_arguments(self, params: dict[str, Any], scratch: Path) -> tuple[dict[str, Any], Recheck | None]:
        """The protocol params for one fresh process; `scratch` is a folder of its own."""
        arguments = self.hooks.process_arguments
        return arguments(params, scratch) if arguments else (dict(params), None)


def expand(params: dict[str, Any]) -> list[dict[str, Any]]:
    """Every list value becomes its own set: the product of the choices."""
    names = list(params)
    choices = [v if isinstance(v, list) else [v] for v in params.values()]
    return [dict(zip(names, combo)) for combo in itertools.product(*choices)]


def _module_for(raw: dict) -> ModuleType:
    dotted = raw.get("module") or f"parbench.workloads.{raw['name'].replace('-', '_')}"
    try:
        return importlib.import_module(dotted)
    except ImportError as error:
        raise SpecError(f"workload {raw['name']}: its module {dotted} cannot be imported ({error})") from None


def load_all() -> dict[str, Workload]:
    workloads = {}
    for path in sorted(WORKLOADS_DIR.glob("*.toml")):
        with open(path, "rb") as f:
            raw = tomllib.load(f)
        workloads[raw["name"]] = Workload(
            name=raw["name"], title=raw["title"], spec=raw["spec"], items=raw["items"],
            scales=raw["scales"], verify=raw["verify"], module=_module_for(raw),
            one_repetition_per_process=raw.get("one_repetition_per_process", False),
            seq_only_when=raw.get("seq_only_when", {}), common=raw.get("common", {}),
            unnamed_scales=tuple(raw.get("unnamed_scales", SCALES)))
    return workloads


@functools.lru_cache(maxsize=1)
def _all_cached() -> dict[str, Workload]:
    return load_all()


def load_all_cached() -> dict[str, Workload]:
    """The workloads of the project's specs, read once (reports ask for them per table)."""
    return _all_cached()


def with_noop(workloads: dict[str, Workload]) -> dict[str, Workload]:
    """The workloads and `noop` (each runtime's start-up, measured beside every run)."""
    return {**workloads, "noop": Workload("noop", "start-up: a process that does no work", "docs/protocol.md",
                                          "none", {s: {} for s in SCALES}, {}, noop)}


def in_report_order(names, workloads: dict[str, Workload] | None = None) -> list[str]:
    """Workload names in the seeds' order (each module's ORDER), unknown ones last by name."""
    workloads = workloads if workloads is not None else load_all_cached()
    return sorted(names, key=lambda name: (workloads[name].order if name in workloads else 100, name))


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
        if not name:
            raise SpecError(f"--param wants NAME=VALUE, got '{pair}'")
        texts = value.split(",")
        if any(not text.strip() for text in texts):
            raise SpecError(f"--param {name}: empty value in '{value}' (a comma list needs a value "
                            "between every two commas)")
        values = [_typed(text.strip()) for text in texts]
        out[name] = values if len(values) > 1 else values[0]
    return out


def check_params(workloads: dict[str, Workload], chosen: list[str], params: dict[str, Any]) -> None:
    """Every value of every overridden param, checked by each chosen workload that has it."""
    for name, value in params.items():
        for workload in (workloads[w] for w in chosen if name in workloads[w].params):
            for one in value if isinstance(value, list) else [value]:
                try:
                    workload.check_params({name: one})
                except ParamError as error:
                    raise SpecError(str(error)) from None


def _typed(text: str) -> Any:
    try:
        return int(text, 10)
    except ValueError:
        try:
            return int(text, 0)       # 0b1010000010, 0x282
        except ValueError:
            return text


__all__ = ["SCALES", "SpecError", "Workload", "expand", "load_all", "choose", "parse_param_overrides",
           "check_params", "Recheck", "LineContext", "load_all_cached", "ParamError", "with_noop", "in_report_order"]
