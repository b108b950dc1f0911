"""What a workload's module gives the harness, read and checked once, when the workload loads.

A workload's package (docs/architecture.md) defines PARAMS, `expected_checksum` and
`expected_items`, and any of the optional hooks below. The harness reads them through one typed
record, WorkloadHooks, never through the module: a missing hook, one of the wrong type or arity,
or a public name one letter away from a hook (`line_problems`) is a SpecError when the workload
loads, not an AttributeError in the middle of a sitting.
"""
from __future__ import annotations

import difflib
import inspect
from dataclasses import dataclass, field, fields
from types import ModuleType
from typing import Any, Callable

from parbench.workloads.params import ParamError
from parbench.workloads.seeds import Seed


class HookError(ValueError):
    """A workload module that does not give the harness what it needs (workloads.SpecError wraps it)."""


@dataclass(frozen=True)
class WorkloadHooks:
    # required
    params: dict[str, Any]                               # PARAMS: name → its typed Param
    expected_checksum: Callable[..., str | None]         # (params, variant) → the oracle's answer
    expected_items: Callable[..., int | None]            # (params) → items a repetition handles
    # optional: constants
    swept_param: str | None = None                       # SWEPT_PARAM: what a size or task sweep varies
    order: int = 100                                     # ORDER: its place in reports
    seed: Seed | None = None                             # SEED: the seed article's figures
    sweeps: dict[str, str] = field(default_factory=dict)   # SWEEPS: {analysis: the sweep that measures it}
    # UNTIMED_WORK: the phases outside the timed region that hold work of their own in this
    # workload ("checksum": a digest of megabytes; "ceiling"; "baselines"), trusted as reported.
    # Any other phase a line books counts against the unaccounted-time allowance (proofs.py).
    untimed_work: tuple[str, ...] = ()
    # DRIVER: who drives a process's repetitions, where the launcher's feed does not
    # ("load-generator": echo-server's, measure/echo_loop.py); None for the launcher's own.
    driver: str | None = None
    # optional: functions
    variants: Callable | None = None                     # (params, count, rng) → variants
    process_extras: Callable | None = None               # (params, rng) → extra arguments of a process
    process_arguments: Callable | None = None            # (params, scratch) → (arguments, recheck)
    line_problem: Callable | None = None                 # (line, context) → why a line proves nothing
    process_problem: Callable | None = None              # (lines, context) → why a process proves nothing
    unique_answers: Callable | None = None               # (params) → no two repetitions may agree
    machine_ceiling: Callable | None = None              # (params) → (name, mode, amount) or None
    footprint: Callable | None = None                    # (params) → (disk bytes, memory bytes)
    proof_label: Callable | None = None                  # (params, family) → what stands for ✓, or None


# Each hook: the module's name for it, and the number of arguments a function hook takes.
CONSTANTS = {"params": "PARAMS", "swept_param": "SWEPT_PARAM", "order": "ORDER", "seed": "SEED", "sweeps": "SWEEPS",
             "untimed_work": "UNTIMED_WORK", "driver": "DRIVER"}
ARITY = {"expected_checksum": 2, "expected_items": 1, "variants": 3, "process_extras": 2, "process_arguments": 2,
         "line_problem": 2, "process_problem": 2, "unique_answers": 1, "machine_ceiling": 1, "footprint": 1,
         "proof_label": 2}
REQUIRED = ("params", "expected_checksum", "expected_items")
KINDS_OF_CONSTANT = {"params": dict, "swept_param": str, "order": int, "seed": Seed, "sweeps": dict,
                     "untimed_work": tuple, "driver": str}
DRIVERS = ("load-generator",)
UNTIMED_PHASES = ("checksum", "ceiling", "baselines")


def hooks_of(module: ModuleType, workload: str) -> WorkloadHooks:
    """The module's hooks, checked; HookError naming the first thing wrong."""
    where = f"workload {workload} (module {getattr(module, '__name__', 'of the spec')})"
    found: dict[str, Any] = {}
    for hook in (f.name for f in fields(WorkloadHooks)):
        name = CONSTANTS.get(hook, hook)
        if not hasattr(module, name):
            if hook in REQUIRED:
                raise HookError(f"{where} defines no {name}, which every workload needs")
            continue
        value = getattr(module, name)
        found[hook] = _checked_constant(hook, name, value, where) if hook in CONSTANTS else \
            _checked_function(hook, value, where)
    _refuse_near_misses(module, where)
    return WorkloadHooks(**found)


def _checked_constant(hook: str, name: str, value: Any, where: str) -> Any:
    wanted = KINDS_OF_CONSTANT[hook]
    if hook == "seed" and value is None:
        return None
    if not isinstance(value, wanted) or (wanted is int and isinstance(value, bool)):
        raise HookError(f"{where}: {name} is a {type(value).__name__}, not a {wanted.__name__}")
    if hook == "params":
        for param, typed in value.items():
            if not callable(getattr(typed, "check", None)):
                raise HookError(f"{where}: PARAMS[{param!r}] has no check(name, value) "
                                f"(a Param of workloads/params.py: {ParamError.__name__} says what is wrong)")
    if hook == "sweeps" and not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise HookError(f"{where}: SWEEPS maps analysis names to sweep names, both text")
    if hook == "driver" and value not in DRIVERS:
        raise HookError(f"{where}: DRIVER is {value!r}; the harness knows {', '.join(DRIVERS)}")
    if hook == "untimed_work" and not set(value) <= set(UNTIMED_PHASES):
        raise HookError(f"{where}: UNTIMED_WORK names {sorted(set(value) - set(UNTIMED_PHASES))}; "
                        f"the phases are {', '.join(UNTIMED_PHASES)}")
    return dict(value) if isinstance(value, dict) else value


def _checked_function(hook: str, value: Any, where: str) -> Callable:
    if not callable(value):
        raise HookError(f"{where}: {hook} is a {type(value).__name__}, not a function")
    try:
        inspect.signature(value).bind(*([None] * ARITY[hook]))
    except TypeError:
        raise HookError(f"{where}: {hook}{inspect.signature(value)} cannot take the {ARITY[hook]} "
                        f"argument(s) the harness passes") from None
    except ValueError:          # a builtin without a signature: trusted as it is
        pass
    return value


def _refuse_near_misses(module: ModuleType, where: str) -> None:
    """A public name that is almost a hook's is a misspelt hook the harness would never call."""
    names = set(CONSTANTS.values()) | set(ARITY)
    for public in (n for n in vars(module) if not n.startswith("_") and n not in names):
        close = difflib.get_close_matches(public, names, n=1, cutoff=0.85)
        if close:
            raise HookError(f"{where} defines {public}, which is no hook of a workload: did you mean {close[0]}?")
