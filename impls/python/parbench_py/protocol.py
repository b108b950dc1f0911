"""The harness protocol (docs/protocol.md): argument parsing, the timed repetitions, JSON lines, exit codes."""
from __future__ import annotations

import contextlib
import glob
import itertools
import json
import os
import resource
import sys
import time
from dataclasses import dataclass, field
from typing import IO, Any, Callable, ContextManager, Iterable

EXIT_RUN_FAILED = 1
EXIT_BAD_ARGUMENTS = 2
EXIT_LIMIT = 3
REQUIRED = object()


class BadArguments(Exception):
    """A one-line reason the call cannot run, printed on stderr with exit 2."""


class LimitReached(Exception):
    """A resource limit stopped the work; the message is the runtime's own (exit 3, a result)."""


class RunFailed(Exception):
    """A fault that ends the run (a worker that died, a scheduler out of reach): one line on stderr, exit 1."""


@dataclass(frozen=True)
class Param:
    name: str                      # spelled with `_`; the command line spells it with `-`
    parse: Callable[[str], Any]
    default: Any = REQUIRED
    choices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """What one timed repetition did; the checksum, then the ceiling, run after the clock stops."""
    items: int
    checksum: Callable[[], str]
    extra: dict[str, Any] = field(default_factory=dict)
    # The workload's ceiling (docs/workloads/README.md), timed by itself: its extra fields
    # (`ceiling`, `ceiling_ns`, parts such as `csprng_ns`).
    ceiling: Callable[[], dict[str, Any]] | None = None
    # What each worker reported: (worker, start, end) on time.monotonic_ns, one per chunk or
    # document; the protocol turns them into extra.busy (one interval per worker, from the clock's start).
    busy: list[tuple[Any, int, int]] | None = None
    # Evidence read from the result after the clock, with the checksum (keygen's probes): extra fields.
    evidence: Callable[[], dict[str, Any]] | None = None

    def finish(self) -> tuple[str, dict[str, Any]]:
        """(checksum, extra with the evidence and the ceiling's fields): the checksum first, as the contract orders."""
        checksum = self.checksum()
        extra = dict(self.extra)
        if self.evidence is not None:
            extra.update(self.evidence())
        if self.ceiling is not None:
            extra.update(self.ceiling())
        return checksum, extra


@dataclass(frozen=True)
class Job:
    params: dict[str, Any]
    input: Any                     # whatever the workload loaded before the timed region
    workers: int | None
    session: Any = None            # the warm start's Session (its pool), else the do-nothing one


class Session:
    """What a warm model makes once for the whole process (a pool, a Dask cluster).

    Entered before the ready line, timed as its start_ns, and left at the end of stdin (protocol 4:
    only the launcher knows which repetition is the last), even on an error or a signal. A cold or seq model gets this default, which does nothing."""
    extra: dict[str, Any] = {}     # merged into every repetition's extra

    def check(self) -> None:
        """Called after each repetition's clock stops; raises RunFailed if the run cannot be trusted."""

    def workers_cpu_ns(self) -> int:
        """The CPU time so far of the session's worker processes, which getrusage cannot see
        (they are alive, not reaped inside the clock); 0 where it has none."""
        return 0


@dataclass(frozen=True)
class Model:
    family: str
    run: Callable[[Job], Outcome]
    workers: bool = False
    note: str = ""
    flags: str = ""
    detail: str = ""               # a server's model_detail (echo-server's --list entry)
    # Protocol 3's start modes: what each offered mode makes and where, and why the others cannot apply.
    starts: dict[str, str] = field(default_factory=dict)
    start_unavailable: dict[str, str] = field(default_factory=dict)
    # The warm start's Session from (params, workers, loaded input): a context manager for the
    # whole process, entered before the ready line.
    session: Callable[[dict[str, Any], int | None, Any], ContextManager[Session]] | None = None

    @property
    def default_start(self) -> str | None:
        """cold where it is offered (protocol 2's contract), else the only mode; None: no --start."""
        return "cold" if "cold" in self.starts else next(iter(self.starts), None)

    def describe(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"family": self.family}
        if self.workers:
            entry["workers"] = True
        if self.note:
            entry["note"] = self.note
        if self.detail:
            entry["detail"] = self.detail
        if self.flags:
            entry["flags"] = self.flags
        if self.starts:
            entry["start"] = dict(self.starts)
        if self.start_unavailable:
            entry["start_unavailable"] = dict(self.start_unavailable)
        return entry


@dataclass(frozen=True)
class Workload:
    name: str
    params: tuple[Param, ...]
    models: dict[str, Model]
    load: Callable[[dict[str, Any]], tuple[Any, int]] = lambda params: (None, 0)  # (input, load_ns)
    # The param a repetition's variant replaces (key, seed, start, salt); one that is not a
    # command-line param (spawn-chain's start, coroutine-swarm's salt) has the base value 0.
    # None: the variant line is read and ignored (batch-job, noop).
    variant: str | None = None
    # Kernel class -> what it runs, for --list (protocol 2's "kernels"); empty: no --kernel.
    kernels: dict[str, str] = field(default_factory=dict)
    # The kernel_detail of one case's lines, from its params (what ran for this cipher or source).
    kernel_detail: Callable[[dict[str, Any]], str] | None = None
    # Run before a repetition's clock starts, inside its prepare_ns, with (params, repetition):
    # batch-job restores its database before every repetition but the process's first.
    prepare: Callable[[dict[str, Any], int], None] | None = None
    # A server (echo-server) answers its own conversation instead of timed repetitions: it gets the
    # parsed call and returns at the end of stdin.
    serve: Callable[[Call], None] | None = None
    # Models this runtime cannot offer here, each with why (--list's models_unavailable).
    unavailable: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Call:
    workload: Workload
    model_name: str
    params: dict[str, Any]
    workers: int | None
    start: str | None = None       # protocol 3's start mode; None for a model that takes none


def _option_pairs(tokens: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if not token.startswith("--") or index + 1 >= len(tokens):
            raise BadArguments(f"expected '--name value' pairs, got {token!r}")
        options[token[2:].replace("-", "_")] = tokens[index + 1]
        index += 2
    return options


def _parse_value(name: str, parse: Callable[[str], Any], text: str) -> Any:
    try:
        return parse(text)
    except ValueError:
        raise BadArguments(f"--{name.replace('_', '-')} {text!r} is not a valid {parse.__name__}") from None


def parse_call(argv: list[str], workloads: dict[str, Workload], valid_names: list[str]) -> Call:
    if not argv or argv[0] not in workloads:
        given = argv[0] if argv else "nothing"
        raise BadArguments(f"unknown workload {given!r}; valid: {', '.join(valid_names)} (or --list)")
    workload = workloads[argv[0]]
    options = _option_pairs(argv[1:])
    model_name = options.pop("model", None)
    if workload.name == "noop":
        model_name = "seq"  # noop does nothing whatever model the caller names
    if model_name not in workload.models:
        raise BadArguments(f"unknown model {model_name!r} for {workload.name}; valid: {', '.join(workload.models)}")
    model = workload.models[model_name]
    workers = None
    if "workers" in options:
        if not model.workers:
            raise BadArguments(f"model {model_name!r} of {workload.name} takes no --workers")
        workers = _parse_value("workers", int, options.pop("workers"))
        if workers < 1:
            raise BadArguments("--workers must be at least 1")
    elif model.workers:
        workers = os.cpu_count() or 1
    start = _start_mode(options.pop("start", None), workload.name, model_name, model)
    params: dict[str, Any] = {}
    if workload.kernels:
        kernel = options.pop("kernel", "portable")
        if kernel not in workload.kernels:
            raise BadArguments(f"--kernel {kernel!r} does not exist for {workload.name} in python; "
                               f"valid: {', '.join(workload.kernels)}")
        params["kernel"] = kernel
    for param in workload.params:
        if param.name in options:
            value = _parse_value(param.name, param.parse, options.pop(param.name))
        elif param.default is REQUIRED:
            raise BadArguments(f"{workload.name} needs --{param.name.replace('_', '-')}")
        else:
            value = param.default
        if param.choices and value not in param.choices:
            raise BadArguments(f"--{param.name.replace('_', '-')} {value!r} is not valid; valid: {', '.join(param.choices)}")
        params[param.name] = value
    if options:
        valid = ", ".join("--" + p.name.replace("_", "-") for p in workload.params) or "none"
        unknown = ", ".join("--" + name.replace("_", "-") for name in options)
        raise BadArguments(f"unknown parameter {unknown} for {workload.name}; valid: {valid}")
    if workload.variant is not None:
        params.setdefault(workload.variant, 0)
    # No --warmup or --repeat (protocol 4): the launcher alone decides how many repetitions run and
    # which are timed, so either is an unknown parameter like any other.
    return Call(workload, model_name, params, workers, start)


def _start_mode(asked: str | None, workload: str, model_name: str, model: Model) -> str | None:
    """--start cold|warm: the mode asked for if the model offers it, else its default."""
    if not model.starts:
        if asked is None:
            return None
        reasons = "; ".join(f"{mode}: {why}" for mode, why in model.start_unavailable.items())
        raise BadArguments(f"model {model_name!r} of {workload} takes no --start" + (f" ({reasons})" if reasons else ""))
    if asked is None:
        return model.default_start
    if asked not in ("cold", "warm"):
        raise BadArguments(f"--start {asked!r} is not valid; valid: cold, warm")
    if asked not in model.starts:
        raise BadArguments(f"model {model_name!r} of {workload} has no {asked} start: "
                           f"{model.start_unavailable.get(asked, 'not offered')}; valid: {', '.join(model.starts)}")
    return asked


def read_variant(workload: Workload, repetition: int, line: str) -> int | None:
    """Repetition j's variant from its stdin line (protocol 3): a non-negative decimal integer,
    checked as the param it replaces where it replaces one (sdes-ecb's 10-bit key); None at end
    of file, where the launcher wants no further repetition (protocol 4)."""
    if line == "":
        return None
    text = line.strip()
    if not text.isdigit():
        raise BadArguments(f"stdin line {line!r} for repetition {repetition} is not a variant; "
                           "valid: one non-negative decimal integer per line")
    replaced = [param for param in workload.params if param.name == workload.variant]
    if not replaced:
        return int(text)
    try:
        return replaced[0].parse(text)
    except ValueError:
        raise BadArguments(f"the variant {text} of repetition {repetition} is not a valid "
                           f"{replaced[0].parse.__name__} (it replaces --{workload.variant})") from None


def int_list(text: str) -> tuple[int, ...]:
    """A comma-separated list of non-negative integers (--probes); empty for none."""
    values = tuple(int(value) for value in text.split(",") if value != "")
    if any(value < 0 for value in values):
        raise ValueError(text)
    return values


int_list.__name__ = "comma-separated list of non-negative integers"


# Every clock of the run is time.monotonic_ns (CLOCK_MONOTONIC on Linux): it is machine-wide,
# so intervals read in threads, forked pool processes and local Dask workers share its origin.
clock_ns = time.monotonic_ns


def time_ns(action: Callable[[], Any]) -> int:
    """Nanoseconds `action()` takes on the monotonic clock the repetitions use (for ceilings)."""
    started = clock_ns()
    action()
    return clock_ns() - started


def cpu_us() -> tuple[int, int]:
    """(user, system) CPU microseconds of this process and of its children reaped so far.

    getrusage gives microseconds; RUSAGE_CHILDREN grows when a child is waited for, so a pool's
    processes count in the repetition whose shutdown reaps them (inside the clock)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return (round((own.ru_utime + children.ru_utime) * 1e6), round((own.ru_stime + children.ru_stime) * 1e6))


def processes_cpu_ns(pids: Iterable[int]) -> int:
    """User and system CPU ns of every thread of the processes so far: the first field of each
    thread's /proc/<pid>/task/<tid>/schedstat (ns, unlike /proc/<pid>/stat's clock ticks)."""
    total = 0
    for pid in pids:
        for task in glob.glob(f"/proc/{pid}/task/*/schedstat"):
            try:
                with open(task) as schedstat:
                    total += int(schedstat.read().split()[0])
            except (OSError, ValueError, IndexError):
                pass   # a thread that ended between the listing and the read
    return total


def busy_intervals(reported: list[tuple[Any, int, int]], clock_start: int) -> list[list[int]]:
    """[[worker, start, end], ...]: one interval per worker, from the start of its first chunk to the
    end of its last, in ns from the repetition's clock start; workers numbered by their first start."""
    spans: dict[Any, list[int]] = {}
    for worker, start, end in reported:
        if worker in spans:
            span = spans[worker]
            span[0], span[1] = min(span[0], start), max(span[1], end)
        else:
            spans[worker] = [start, end]
    ordered = sorted(spans.values())
    return [[index, start - clock_start, end - clock_start] for index, (start, end) in enumerate(ordered)]


def json_line(record: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(record, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def run_repetitions(call: Call, variants: IO[str] | None = None) -> None:
    """Loads the input, makes the warm start's pool, prints the ready line, then runs one
    repetition per variant line it reads from `variants` and prints its line, until end of file
    (protocol 4: the process never knows how many repetitions there will be, nor which are timed).

    Between two lines the process spends, in this order: reading the variant (outside every
    clock), prepare_ns (the repetition's params with its variant), ns (the work; CPU read right
    after the clock starts and right before it stops), checksum_ns (the checksum and the
    evidence), the ceiling's own fields, cleanup_ns (ending a cold ceiling's units, the session's
    health check, dropping the result)."""
    loaded, load_ns = call.workload.load(call.params)
    model = call.workload.models[call.model_name]
    warm = call.start == "warm"
    opened = model.session(call.params, call.workers, loaded) if warm else contextlib.nullcontext(Session())
    variants = variants or sys.stdin
    with contextlib.ExitStack() as stack:
        making = clock_ns()
        session = stack.enter_context(opened)
        _print_ready(call, session, clock_ns() - making if warm else None)
        for repetition in itertools.count():
            variant = read_variant(call.workload, repetition, variants.readline())
            if variant is None:
                return   # end of file: the ExitStack leaves the warm session
            _run_one(call, model, session, loaded, variant, repetition, load_ns)


def _print_ready(call: Call, session: Session, start_ns: int | None) -> None:
    """The ready line (protocol 3): the mode that runs, and for warm the time its pool took."""
    ready: dict[str, Any] = {"ready": call.start or "none"}
    if start_ns is not None:
        ready["start_ns"] = start_ns
    extra = {**({"workers": call.workers} if call.workers is not None else {}), **session.extra}
    if extra:
        ready["extra"] = extra
    json_line(ready)


def _run_one(call: Call, model: Model, session: Session, loaded: Any, variant: int, repetition: int,
             load_ns: int) -> None:
    prepare_started = clock_ns()
    params = dict(call.params)
    if call.workload.variant is not None:
        params[call.workload.variant] = variant
    job = Job(params, loaded, call.workers, session)
    if call.workload.prepare is not None:
        call.workload.prepare(params, repetition)
    started = clock_ns()
    prepare_ns = started - prepare_started
    cpu_before, workers_before = cpu_us(), session.workers_cpu_ns()
    outcome = model.run(job)
    cpu_after, workers_after = cpu_us(), session.workers_cpu_ns()
    stopped = clock_ns()
    checksum = outcome.checksum()
    evidence = outcome.evidence() if outcome.evidence is not None else {}
    ceiling_started = clock_ns()
    checksum_ns = ceiling_started - stopped
    ceiling = outcome.ceiling() if outcome.ceiling is not None else {}
    # What the ceiling's call spent outside its clock and its units' start was ending those units.
    ceiling_end_ns = max(0, clock_ns() - ceiling_started - ceiling.get("ceiling_ns", 0)
                         - ceiling.get("ceiling_setup_ns", 0))
    cleanup_started = clock_ns()
    items, extra, busy = outcome.items, outcome.extra, outcome.busy
    session.check()
    outcome = job = None   # the result (a million keys) is freed here, not inside the next clock
    cleanup_ns = clock_ns() - cleanup_started + ceiling_end_ns
    extra = {**session.extra, **extra, **evidence, **ceiling,
             "cpu_user_ns": (cpu_after[0] - cpu_before[0]) * 1000 + workers_after - workers_before,
             "cpu_sys_ns": (cpu_after[1] - cpu_before[1]) * 1000,
             "checksum_ns": checksum_ns, "prepare_ns": prepare_ns, "cleanup_ns": cleanup_ns}
    if call.start is not None:
        extra["start"] = call.start
    if busy is not None:
        extra["busy"] = busy_intervals(busy, started)
    if call.workload.kernels:
        extra["kernel"] = params["kernel"]
        detail = call.workload.kernel_detail
        extra["kernel_detail"] = detail(params) if detail else call.workload.kernels[params["kernel"]]
    _print_line(repetition, stopped - started, items, checksum, extra, call.workers, load_ns)


def _print_line(repetition: int, elapsed: int, items: int, checksum: str, extra: dict[str, Any],
                workers: int | None, load_ns: int) -> None:
    if workers is not None:
        extra.setdefault("workers", workers)   # a model may say how many really exist (a remote cluster)
    if load_ns:
        extra["load_ns"] = load_ns
    json_line({"rep": repetition, "ns": elapsed, "items": items, "checksum": checksum, "extra": extra})


def main(argv: list[str], workloads: dict[str, Workload], describe_runtime: Callable[[], dict],
         valid_names: list[str]) -> int:
    """`workloads` holds at least the one argv names (if it is valid); `valid_names` every one."""
    if argv == ["--list"]:
        json_line(describe_runtime())
        return 0
    try:
        call = parse_call(argv, workloads, valid_names)
        (call.workload.serve or run_repetitions)(call)
    except BadArguments as error:
        print(str(error), file=sys.stderr)
        return EXIT_BAD_ARGUMENTS
    except (LimitReached, MemoryError) as error:
        detail = str(error) or type(error).__name__
        json_line({"error": "limit", "detail": detail})
        return EXIT_LIMIT
    except RunFailed as error:
        print(str(error), file=sys.stderr)
        return EXIT_RUN_FAILED
    return 0
