"""The harness protocol (docs/protocol.md): argument parsing, the timed repetitions, JSON lines, exit codes."""
from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, ContextManager

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

    def finish(self, with_checksum: bool = True) -> tuple[str | None, dict[str, Any]]:
        """(checksum, extra with the ceiling's fields): the checksum first, as the contract orders."""
        checksum = self.checksum() if with_checksum else None
        extra = dict(self.extra)
        if self.ceiling is not None:
            extra.update(self.ceiling())
        return checksum, extra


@dataclass(frozen=True)
class Job:
    params: dict[str, Any]
    input: Any                     # whatever the workload loaded before the timed region
    workers: int | None
    session: Any = None            # what the model's session set up for the whole process


class Session:
    """What a model needs for the whole process rather than per repetition (a Dask cluster).

    Entered before the first repetition and left after the last, even on an error or a signal;
    its set-up is never in `ns`: it reports its own time in `extra`. The default does nothing.
    """
    extra: dict[str, Any] = {}     # merged into every repetition's extra

    def check(self) -> None:
        """Called after each repetition's clock stops; raises RunFailed if the run cannot be trusted."""


@dataclass(frozen=True)
class Model:
    family: str
    run: Callable[[Job], Outcome]
    workers: bool = False
    note: str = ""
    flags: str = ""
    # Makes the model's Session from (params, workers): a context manager for the whole process.
    session: Callable[[dict[str, Any], int | None], ContextManager[Session]] | None = None

    def describe(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"family": self.family}
        if self.workers:
            entry["workers"] = True
        if self.note:
            entry["note"] = self.note
        if self.flags:
            entry["flags"] = self.flags
        return entry


@dataclass(frozen=True)
class Workload:
    name: str
    params: tuple[Param, ...]
    models: dict[str, Model]
    load: Callable[[dict[str, Any]], tuple[Any, int]] = lambda params: (None, 0)  # (input, load_ns)


@dataclass(frozen=True)
class Call:
    workload: Workload
    model_name: str
    params: dict[str, Any]
    workers: int | None
    warmup: int
    repeat: int


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
    warmup = _parse_value("warmup", int, options.pop("warmup", "0"))
    repeat = _parse_value("repeat", int, options.pop("repeat", "1"))
    workers = None
    if "workers" in options:
        if not model.workers:
            raise BadArguments(f"model {model_name!r} of {workload.name} takes no --workers")
        workers = _parse_value("workers", int, options.pop("workers"))
        if workers < 1:
            raise BadArguments("--workers must be at least 1")
    elif model.workers:
        workers = os.cpu_count() or 1
    params: dict[str, Any] = {}
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
    return Call(workload, model_name, params, workers, warmup, repeat)


def time_ns(action: Callable[[], Any]) -> int:
    """Nanoseconds `action()` takes on the monotonic clock the repetitions use (for ceilings)."""
    started = time.perf_counter_ns()
    action()
    return time.perf_counter_ns() - started


def json_line(record: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(record, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def run_repetitions(call: Call) -> None:
    """Loads the input once, runs the warm-ups unprinted, then prints one line per timed repetition."""
    loaded, load_ns = call.workload.load(call.params)
    model = call.workload.models[call.model_name]
    opened = model.session(call.params, call.workers) if model.session else contextlib.nullcontext(Session())
    with opened as session:
        job = Job(call.params, loaded, call.workers, session)
        for rep in range(-call.warmup, call.repeat):
            started = time.perf_counter_ns()
            outcome = model.run(job)
            elapsed = time.perf_counter_ns() - started
            session.check()
            # Warm-ups run the ceiling too (so it is warm as well); nothing reads their checksum.
            checksum, extra = outcome.finish(with_checksum=rep >= 0)
            if rep < 0:
                continue
            _print_repetition(rep, elapsed, outcome.items, checksum, {**session.extra, **extra}, call.workers, load_ns)


def _print_repetition(rep: int, elapsed: int, items: int, checksum: str, extra: dict[str, Any],
                      workers: int | None, load_ns: int) -> None:
    if workers is not None:
        extra.setdefault("workers", workers)   # a model may say how many really exist (a remote cluster)
    if load_ns:
        extra["load_ns"] = load_ns
    record = {"rep": rep, "ns": elapsed, "items": items, "checksum": checksum}
    if extra:
        record["extra"] = extra
    json_line(record)


def main(argv: list[str], workloads: dict[str, Workload], describe_runtime: Callable[[], dict],
         valid_names: list[str]) -> int:
    """`workloads` holds at least the one argv names (if it is valid); `valid_names` every one."""
    if argv == ["--list"]:
        json_line(describe_runtime())
        return 0
    try:
        call = parse_call(argv, workloads, valid_names)
        run_repetitions(call)
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
