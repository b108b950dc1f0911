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

    def describe(self, timeout: float = 120) -> dict[str, Any]:
        """The implementation's own `run --list`: its workloads, models, families and flags."""
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


