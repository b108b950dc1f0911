"""The runtimes: each impls/<name>/ with its runtime.toml, build, test and run (docs/protocol.md)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from parbench.project import IMPLS_DIR


FAMILIES = ("seq", "threads", "processes", "data-parallel", "async", "green", "actors", "fibers", "distributed")


@dataclass(frozen=True)
class Model:
    """One model of one workload, as the runtime's `run --list` describes it."""
    name: str
    family: str
    workers: bool = False          # takes --workers
    note: str = ""
    flags: str = ""


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
        models = {}
        for model, info in (entry or {}).get("models", {}).items():
            family = (info or {}).get("family", "?")
            if family not in FAMILIES:
                raise ValueError(f"{name}: {workload} model {model} has family '{family}'; valid: {', '.join(FAMILIES)}")
            models[model] = Model(model, family, bool(info.get("workers")), str(info.get("note", "")),
                                  str(info.get("flags", "")))
        kernels = (entry or {}).get("kernels") or {}
        if not isinstance(kernels, dict):
            raise ValueError(f"{name}: {workload}'s kernels must be an object of class → description")
        workloads[workload] = Offer(tuple(entry.get("params", [])), models,
                                    {str(k): str(v) for k, v in kernels.items()})
    return Description(str(data.get("runtime", name)), str(data.get("version", "")), str(data.get("flags", "")),
                       dict(data.get("sources") or {}), workloads)


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

    @property
    def run_script(self) -> Path:
        return self.folder / "run"

    def missing_tools(self) -> list[str]:
        return [tool for tool in self.requires if not _on_path(tool)]

    @property
    def available(self) -> bool:
        return not self.unavailable_reason and not self.missing_tools()

    def why_unavailable(self) -> str:
        if self.unavailable_reason:
            return self.unavailable_reason
        missing = self.missing_tools()
        return f"{', '.join(missing)} not found; install with: {self.install}" if missing else ""

    def version(self) -> str:
        try:
            out = subprocess.run(self.version_command, shell=True, capture_output=True, text=True,
                                 timeout=60, cwd=self.folder)
        except subprocess.TimeoutExpired:
            return "unknown (version command timed out)"
        text = (out.stdout or out.stderr).strip().splitlines()
        return text[0] if text else "unknown"

    def build(self) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.folder / "build")], cwd=self.folder, capture_output=True,
                              text=True)

    def description(self, timeout: float = 120) -> Description:
        """`run --list` parsed into records: what the harness plans with."""
        return parse_description(self.describe(timeout), self.name)

    def describe(self, timeout: float = 120) -> dict[str, Any]:
        """The implementation's own `run --list` as it printed it: workloads, models, families, flags."""
        out = subprocess.run([str(self.run_script), "--list"], capture_output=True, text=True,
                             timeout=timeout)
        if out.returncode != 0:
            raise RuntimeError(f"{self.name}: `run --list` exited {out.returncode}: "
                               f"{out.stderr.strip()[-500:]}")
        try:
            return json.loads(out.stdout)
        except json.JSONDecodeError as error:
            raise RuntimeError(f"{self.name}: `run --list` printed no JSON ({error})") from None


def _on_path(tool: str) -> bool:
    """A command on PATH, or an absolute path that exists (a VM image, a JDK's java)."""
    return os.path.exists(tool) if os.path.isabs(tool) else shutil.which(tool) is not None


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
            unavailable_reason=raw.get("unavailable", ""))
    return runtimes


