"""Typed views of the free-form dicts a run carries (the machine's facts, a runtime's versions, the
run's options, a repetition's extras, a fit's parameters): each key the exporters read is named
once, as a field here, and the exporters read attributes."""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Mapping, TypeVar

from parbench.records import Case, RunRecord

View = TypeVar("View")


def view(kind: type[View], entries: Mapping[str, Any] | None) -> View:
    """`kind` made of the entries named as its fields; a field the entries lack keeps its default
    (a view with no default for it refuses them, as a lookup of a missing key would)."""
    entries = entries or {}
    return kind(**{f.name: entries[f.name] for f in fields(kind) if f.name in entries})


@dataclass(frozen=True)
class Machine:
    """What measure/machine.py records of the machine, as the reports' headers name it (None:
    not recorded, as by older runs)."""
    hostname: Any = None
    cpu: Any = None
    logical_cpus: Any = None
    memory_gib: Any = None
    os: Any = None
    os_kernel: Any = None
    parbench: Any = None
    git_commit: Any = None


@dataclass(frozen=True)
class RuntimeInfo:
    """A runtime's toolchain as the run recorded it."""
    version: Any = ""
    flags: Any = ""
    sources: Any = None                 # what each version was read from


@dataclass(frozen=True)
class RunOptions:
    """The options of a run that change how its exports look."""
    sweep: Any = None                   # the swept axis of a sweep
    time_unit: Any = None               # exec's --time-unit
    sort: Any = None                    # exec's --sort


@dataclass(frozen=True)
class HarnessParams:
    """The params the harness adds to a workload's own."""
    start: Any = ""                     # protocol 3's start mode (cold, warm), "" for none


@dataclass(frozen=True)
class Cluster:
    """A distributed case's cluster, from its repetition's extras (None: not distributed)."""
    cluster: Any = None                 # local | remote
    cluster_start_ns: Any = None        # before the timed region
    cluster_workers: Any = None         # its size in workers (Dask)…
    nodes: Any = None                   # …or in nodes
    cross_node_hops: Any = None


@dataclass(frozen=True)
class ShellCpu:
    """exec's CPU of one run with the shell's start-up subtracted (None: a runtime's repetition)."""
    user_ns: Any = None
    sys_ns: Any = None


@dataclass(frozen=True)
class AmdahlParams:
    f: float                            # the serial fraction


@dataclass(frozen=True)
class UslParams:
    sigma: float                        # contention
    kappa: float                        # coherency


@dataclass(frozen=True)
class NextSizeFailure:
    """A per-task sweep's first size that did not run (analysis/per_task.py's `failure`)."""
    n: float
    outcome: str
    detail: str


def machine_of(record: RunRecord) -> Machine:
    return view(Machine, record.machine)


def options_of(record: RunRecord) -> RunOptions:
    return view(RunOptions, record.options)


def start_mode(case: Case) -> Any:
    return view(HarnessParams, case.params).start


def runtimes_of(record: RunRecord) -> list[tuple[str, RuntimeInfo]]:
    """Each runtime of the run by name, with its toolchain."""
    return [(name, view(RuntimeInfo, info)) for name, info in record.runtimes.items()]
