"""The runtimes: each impls/<name>/ with its runtime.toml, build, test and run (docs/protocol.md)."""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parbench.escaping import INVISIBLE
from parbench.measure.process import run_measured
from parbench.measure.sealing import sealed_build, sealed_call
from parbench.measure.protocol import Unreadable, read_json
from parbench.project import IMPLS_DIR

# workloads → workload → models → model → field: five levels, and room for a runtime's extras.
LIST_MAX_DEPTH = 8


FAMILIES = ("seq", "threads", "processes", "data-parallel", "async", "green", "actors", "fibers", "distributed", "pool",
            "event-loop")


@dataclass(frozen=True)
class Model:
    """One model of one workload, as the runtime's `run --list` describes it."""
    name: str
    family: str
    workers: bool = False          # takes --workers
    note: str = ""
    flags: str = ""
    # Protocol 3's start modes: what each offered mode makes and where ("cold", "warm"), and why
    # a mode that is not offered cannot apply.
    starts: dict[str, str] = field(default_factory=dict)
    start_unavailable: dict[str, str] = field(default_factory=dict)

    @property
    def default_start(self) -> str | None:
        """cold where it is offered (protocol 2's contract, what the seeds measured), else the only mode."""
        return "cold" if "cold" in self.starts else next(iter(self.starts), None)


@dataclass(frozen=True)
class Offer:
    """What a runtime offers for one workload: its own params (beyond the workload's) and models."""
    params: tuple[str, ...]
    models: dict[str, Model]
    kernels: dict[str, str] = field(default_factory=dict)   # class → what runs ("portable": "scalar …")

    @property
    def param_names(self) -> set[str]:
        """The params as the harness spells them (`_`, not the command line's `-`)."""
        return {p.replace("-", "_") for p in self.params}


@dataclass(frozen=True)
class Description:
    """A runtime's `run --list`, parsed once (docs/protocol.md)."""
    runtime: str
    version: str
    flags: str
    sources: dict[str, str]
    workloads: dict[str, Offer]

    @property
    def info(self) -> dict[str, Any]:
        """What every stored run keeps of it."""
        return {"version": self.version, "flags": self.flags, "sources": self.sources}

    def models_of(self, workload: str) -> dict[str, Model]:
        offer = self.workloads.get(workload)
        return offer.models if offer else {}


def parse_description(data: Any, name: str) -> Description:
    """A `run --list` object as records; ValueError naming what is missing or wrong."""
    if not isinstance(data, dict) or not isinstance(data.get("workloads"), dict):
        raise ValueError(f"{name}: `run --list` must be an object with a `workloads` object")
    workloads = {}
    for workload, entry in data["workloads"].items():
        entry = _object(entry or {}, f"{name}: workload {workload}")
        models = {}
        for model, info in _object(entry.get("models") or {}, f"{name}: {workload}'s models").items():
            if _CONTROL_CHARACTER.search(model):
                raise ValueError(f"{name}: {workload} model {ascii(model)[:60]} has a control or invisible character in its name; "
                                 "a model's name is printed in every report")
            info = _object(info or {}, f"{name}: {workload} model {model}")
            family = info.get("family", "?")
            if family not in FAMILIES:
                raise ValueError(f"{name}: {workload} model {model} has family '{family}'; valid: {', '.join(FAMILIES)}")
            models[model] = Model(model, family, bool(info.get("workers")), str(info.get("note", "")),
                                  str(info.get("flags", "")), *_starts(info, f"{name}: {workload} model {model}"))
        kernels = entry.get("kernels") or {}
        if not isinstance(kernels, dict):
            raise ValueError(f"{name}: {workload}'s kernels must be an object of class → description")
        params = entry.get("params") or []
        if not isinstance(params, list) or not all(isinstance(p, str) for p in params):
            raise ValueError(f"{name}: {workload}'s params must be a list of names")
        workloads[workload] = Offer(tuple(params), models, {str(k): str(v) for k, v in kernels.items()})
    sources = data.get("sources") or {}
    return Description(str(data.get("runtime", name)), str(data.get("version", "")), str(data.get("flags", "")),
                       {str(k): str(v) for k, v in _object(sources, f"{name}: sources").items()}, workloads)


# A name with one would reach every terminal and table that prints it (ESC clears a screen, a
# bidi override reorders it); a tab or a newline has no place in a name either.
_CONTROL_CHARACTER = re.compile(r"[\t\n]|" + INVISIBLE.pattern)


def _starts(info: dict, what: str) -> tuple[dict[str, str], dict[str, str]]:
    """A model's `start` and `start_unavailable` (protocol 3): modes it offers and why not the
    others; ValueError for a mode protocol 3 does not know."""
    offered = _object(info.get("start") or {}, f"{what}'s start")
    unavailable = _object(info.get("start_unavailable") or {}, f"{what}'s start_unavailable")
    for mode in [*offered, *unavailable]:
        if mode not in ("cold", "warm"):
            raise ValueError(f"{what} names start mode '{mode}'; valid: cold, warm")
    return {k: str(v) for k, v in offered.items()}, {k: str(v) for k, v in unavailable.items()}


def _object(value: Any, what: str) -> dict:
    """`value` if it is a JSON object; ValueError saying what it is instead (a model that is a string)."""
    if not isinstance(value, dict):
        raise ValueError(f"{what} must be an object, not {type(value).__name__} {ascii(value)[:60]}")
    return value


@dataclass
class Runtime:
    name: str
    title: str
    folder: Path
    requires: list[str]
    version_command: str
    install: str
    apt: list[str]
    scale_overrides: list[dict[str, Any]] = field(default_factory=list)
    unavailable_reason: str = ""     # set in runtime.toml for a runtime known not to run here
    # runtime.toml's [[one_repetition]]: models that run one repetition a process, and why
    # (a runtime whose cold start cannot be had twice in one process: Ruby's thread cache).
    one_repetitions: list[dict[str, Any]] = field(default_factory=list)
    # runtime.toml's build_seconds: about how long its build takes from empty caches on 2 cores,
    # only to start the longest builds first (parbench build runs two at once).
    build_seconds: float = 0.0

    @property
    def run_script(self) -> Path:
        return self.folder / "run"

    def missing_tools(self) -> list[str]:
        return [tool for tool in self.requires if not on_path(tool)]

    @property
    def available(self) -> bool:
        return not self.unavailable_reason and not self.missing_tools()

    def why_unavailable(self) -> str:
        if self.unavailable_reason:
            return self.unavailable_reason
        missing = self.missing_tools()
        return f"{', '.join(missing)} not found; install with: {self.install}" if missing else ""

    def one_repetition(self, workload: str, model: str, params: dict[str, Any]) -> str | None:
        """Why a case of this runtime runs one repetition a process (runtime.toml's
        [[one_repetition]]: its workload, its models, and `when` params such as start = "cold"),
        or None."""
        for rule in self.one_repetitions:
            if rule.get("workload") == workload and model in rule.get("models", []) and all(
                    params.get(k) == v for k, v in rule.get("when", {}).items()):
                return str(rule.get("why", ""))
        return None

    def version(self) -> str:
        """The toolchain's version line, sealed as the build is (sealing.sealed_build): as the
        benchmark user, rustup found no toolchain in a HOME of its own and answered with an error."""
        with sealed_build(self.folder) as seal:
            out = run_measured(["sh", "-c", self.version_command], 60, cwd=str(self.folder), protocol=False, **seal)
        if out.timed_out:
            return "unknown (version command timed out)"
        text = (out.stdout_head or out.stderr).strip().splitlines()
        return text[0] if text else "unknown"

    def build(self, timeout: float = 3600) -> subprocess.CompletedProcess:
        """impls/<rt>/build under the launcher: in a cgroup of its own, gone with parbench, and
        sealed (sealing.sealed_build): it writes its own folder and the registries' caches,
        and reads nothing a benchmark may not."""
        return self._sealed("build", timeout)

    def test(self, timeout: float = 900) -> subprocess.CompletedProcess:
        """impls/<rt>/test, the runtime's own tests, sealed as its build is."""
        return self._sealed("test", timeout)

    def _sealed(self, script: str, timeout: float) -> subprocess.CompletedProcess:
        with sealed_build(self.folder) as seal:
            done = run_measured([str(self.folder / script)], timeout, cwd=str(self.folder), protocol=False, **seal)
        code = done.exit_code if done.exit_code is not None else 124 if done.timed_out else 128 + (done.signal or 0)
        return subprocess.CompletedProcess([script], code, done.stdout_head, done.stderr)

    def description(self, timeout: float = 120) -> Description:
        """`run --list` parsed into records: what the harness plans with."""
        return parse_description(self.describe(timeout), self.name)

    def describe(self, timeout: float = 120) -> dict[str, Any]:
        """The implementation's own `run --list` as it printed it: workloads, models, families, flags."""
        # Under the launcher: its processes (a daemon it leaves behind included) end with it,
        # with a timeout, or with parbench itself, and its output is read with a bound.
        # Sealed as a benchmark is (sealing.py): a `run --list` must not read the answers either.
        with sealed_call() as seal:
            out = run_measured([str(self.run_script), "--list"], timeout, **seal)
        if out.stdout_problem or out.timed_out:
            raise RuntimeError(f"{self.name}: `run --list` " + (out.stdout_problem or f"took over {timeout:g} s"))
        if out.exit_code != 0:
            raise RuntimeError(f"{self.name}: `run --list` exited {out.exit_code}: "
                               f"{out.stderr.strip()[-500:]}")
        try:
            return read_json("\n".join(out.stdout_lines), max_depth=LIST_MAX_DEPTH)
        except Unreadable as error:
            raise RuntimeError(f"{self.name}: `run --list` printed no readable JSON ({error})") from None


def on_path(tool: str) -> bool:
    """A command on PATH, or an absolute path that exists (a VM image, a JDK's java)."""
    return os.path.exists(tool) if os.path.isabs(tool) else shutil.which(tool) is not None


# Tools `parbench doctor` looks for beside the runtimes, and what each is for.
TOOLS = (("sqlite3", "results store (built into Python; the CLI is optional)"),
         ("psql", "PostgreSQL cases and store (scripts/postgres-up starts the server)"),
         ("chromium", "the HTML report's browser test"),
         ("hyperfine", "optional: cross-checking `parbench exec`"))


def distributed_engines() -> list[tuple[str, bool, str]]:
    """The engines the `distributed` models run on, found or not, and how to get them."""
    dask = subprocess.run([sys.executable, "-c", "import dask, distributed; print(distributed.__version__)"],
                          capture_output=True, text=True)
    epmd = on_path("epmd") and on_path("erl")
    return [("Dask distributed (python model `dask`)", dask.returncode == 0,
             f"distributed {dask.stdout.strip()}" if dask.returncode == 0 else
             "install with: .venv/bin/pip install 'distributed==2026.8.0' (make setup does)"),
            ("Erlang distribution (elixir model `distributed`, :peer nodes on 127.0.0.1)", epmd,
             "epmd and erl found (the case starts epmd if it is not running)" if epmd else
             "install with: apt-get install -y erlang-base")]


def load_all() -> dict[str, Runtime]:
    runtimes = {}
    for path in sorted(IMPLS_DIR.glob("*/runtime.toml")):
        with open(path, "rb") as f:
            raw = tomllib.load(f)
        runtimes[raw["name"]] = Runtime(
            name=raw["name"], title=raw.get("title", raw["name"]), folder=path.parent,
            requires=raw.get("requires", []), version_command=raw.get("version", "true"),
            install=raw.get("install", ""), apt=raw.get("apt", []),
            scale_overrides=raw.get("scale_override", []),
            one_repetitions=raw.get("one_repetition", []),
            unavailable_reason=raw.get("unavailable", ""), build_seconds=float(raw.get("build_seconds", 0)))
    return runtimes


def longest_build_first(runtimes: list[Runtime]) -> list[Runtime]:
    """The order to start builds in: with two at once, the longest first keeps the last one from
    starting late and running alone (Rust's 128 s, started ninth in name order, ended last)."""
    return sorted(runtimes, key=lambda runtime: -runtime.build_seconds)
