"""The plain records that flow through the pipeline: plan → run → analyze → store → report."""
from __future__ import annotations

import ast

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from parbench.units import format_duration


def now() -> str:
    """The time a run starts or ends, as every record stores it (local, with its offset)."""
    return dt.datetime.now().astimezone().isoformat(timespec="seconds")


@dataclass(frozen=True)
class Case:
    """One point of the matrix: workload × runtime × model × parameters."""
    workload: str
    runtime: str
    model: str
    family: str
    params: dict[str, Any]              # the workload's params as the user sees them (size, docs…)
    workers: int | None = None          # set for models that take --workers
    overrides: tuple[str, ...] = ()     # why a param differs from the scale's (runtime.toml)
    note: str = ""

    @property
    def key(self) -> str:
        shown = ",".join(f"{k}={v}" for k, v in sorted(self.params.items()))
        workers = f",workers={self.workers}" if self.workers is not None else ""
        return f"{self.workload}/{self.runtime}/{self.model}[{shown}{workers}]"

    @property
    def table(self) -> tuple:
        """The cases compared in one table: one workload with the same params; every command
        of one `exec` (its parameters are part of each command) in one."""
        if self.workload == "exec":
            return ("exec",)
        # Cold and warm rows of one parameter set stand in one table, beside the seq model they
        # are compared with; each row names its mode (label).
        return (self.workload, tuple(sorted(((k, v) for k, v in self.params.items() if k != "start"), key=str)))

    @property
    def table_title(self) -> str:
        """The table as a person reads it ("sdes-ecb size=1048576 cipher=bitwise"): how the
        sitting's readings beside it (drift, the machine's ceiling) name it."""
        return table_title(self.table)

    @property
    def label(self) -> str:
        """Short name for tables: the model, plus whatever varies beyond the scale's params."""
        name = self.model if self.runtime == "exec" else f"{self.runtime} {self.model}"
        start = f" {self.params['start']}" if self.params.get("start") else ""
        return name + (f" ×{self.workers}" if self.workers else "") + start


def table_title(table: tuple | str) -> str:
    """A table's key as text a person reads; a key stored as Python's tuple text by runs before
    the readable names (`('noop', ())`) is read back and shown the same way."""
    if isinstance(table, str):
        if not table.startswith("("):
            return table
        try:
            table = ast.literal_eval(table)
        except (ValueError, SyntaxError):
            return table
    workload, *rest = table
    params = rest[0] if rest else ()
    return " ".join([str(workload)] + [f"{k}={v}" for k, v in params])


@dataclass
class Repetition:
    """One timed repetition as the implementation reported it, with the harness's verdict."""
    process: int
    rep: int
    ns: int
    items: int
    checksum: str
    verified: bool
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class ProcessMeasurement:
    """What the kernel says about one fresh process of a case (wait4 rusage of its tree)."""
    index: int
    wall_ns: int
    user_ns: int
    sys_ns: int
    max_rss_kb: int
    voluntary_switches: int
    involuntary_switches: int
    exit_code: int | None         # None when the harness killed it (timeout, Ctrl-C)
    outcome: str                  # ok | limit | crash | timeout | wrong-checksum | unproven | bad-output | bad-arguments | harness-error
    detail: str = ""
    stderr_tail: str = ""
    tree_peak_rss_kb: int = 0     # the whole tree at one moment (0: not measured, older runs)
    memory: dict[str, Any] = field(default_factory=dict)   # how it was measured and limited
    sequence: int | None = None   # its place in the run's order of processes (interleaving)

    @property
    def peak_kb(self) -> int:
        """The tree's peak where measured, else the largest process's."""
        return self.tree_peak_rss_kb or self.max_rss_kb


@dataclass
class CaseRun:
    """Everything measured for one case: its processes and their repetitions."""
    case: Case
    expected_checksum: str
    processes: list[ProcessMeasurement] = field(default_factory=list)
    repetitions: list[Repetition] = field(default_factory=list)
    status: str = "ok"            # ok, or the first process's failure outcome
    reason: str = ""
    flags: dict[str, Any] = field(default_factory=dict)   # runtime flags from the JSON lines' extra

    def fail(self, status: str, reason: str) -> None:
        if self.status == "ok":
            self.status, self.reason = status, reason


@dataclass
class CaseStats:
    """The statistics of one case, from its verified repetitions only."""
    n: int
    mean_ns: float
    stdev_ns: float
    deviation_pct: float
    median_ns: float
    median_ci_ns: tuple[float, float]
    p99_ns: float
    min_ns: float
    max_ns: float
    ips: float
    items_per_s: float
    outliers_low: int
    outliers_high: int
    cpu_utilisation: float | None      # (user+sys) / (wall × cores) over the case's processes
    peak_rss_kb: int | None            # the whole process tree's peak (largest process in old runs)
    process_wall_median_ns: float | None
    largest_process_rss_kb: int | None = None   # ru_maxrss: the largest single process
    # How its processes reached the timed repetitions (protocol 4, analysis/steady_state.py): the
    # case's class ("flat", "warm-up", …, or "inconsistent: …"; "" for runs before it), the median
    # of each process's first repetition (what a one-shot command pays: "cold JIT"), and the
    # median repetitions and time each spent before its steady state.
    steady_class: str = ""
    first_median_ns: float | None = None
    warmup_reps_median: float | None = None
    warmup_median_ns: float | None = None


@dataclass
class Comparison:
    """How a case stands against a reference case (its runtime's seq, or the fastest)."""
    reference: str                     # the reference case's key
    ratio: float                       # this median / reference median (>1 = slower)
    ratio_ci: tuple[float, float]
    difference_ns: float
    significant: bool

    def sentence(self) -> str:
        if not self.significant:
            return "no significant difference"
        if self.ratio >= 1:
            return f"{self.ratio:.2f}x slower +{format_duration(self.difference_ns)}"
        return f"{1 / self.ratio:.2f}x faster -{format_duration(-self.difference_ns)}"


@dataclass
class CaseResult:
    run: CaseRun
    stats: CaseStats | None = None
    vs_seq: Comparison | None = None
    vs_fastest: Comparison | None = None

    @property
    def case(self) -> Case:
        return self.run.case


@dataclass
class RunRecord:
    """One invocation of `parbench run` (or exec): its metadata and its results."""
    id: int | None
    started_at: str
    scale: str
    options: dict[str, Any]
    machine: dict[str, Any]
    runtimes: dict[str, dict[str, Any]]          # name → version, flags, sources
    results: list[CaseResult] = field(default_factory=list)
    status: str = "running"                      # running | complete | interrupted | failed
    finished_at: str | None = None
    kind: str = "suite"                          # suite | exec | sweep

    def __post_init__(self):
        # Runs stored or exported before issue 40 called the OS's kernel release "kernel", the
        # name of the kernel-class param; it is "os_kernel" everywhere now, old runs included.
        if isinstance(self.machine, dict) and "kernel" in self.machine and "os_kernel" not in self.machine:
            self.machine = {("os_kernel" if key == "kernel" else key): value for key, value in self.machine.items()}


class Analysis(NamedTuple):
    """A law fitted to a run's figures: its name (scaling, crossover, per-task, amdahl-shares,
    time-split, drift…; stored and exported as "kind"), what it is about, and the result: its typed record wherever the reports
    read it (analysis/results.py), a plain dict in the store and the JSON export. The reports
    render each through one registry (report/analyses.py)."""
    name: str
    subject: str
    result: Any
