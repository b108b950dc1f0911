"""Deterministic, seeded, cached inputs, so that every runtime works on the very same bytes."""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from pathlib import Path

from parbench.project import cache_root


class InputError(OSError):
    """An input could not be made (a full disk, an unwritable cache); nothing partial is left."""


def publish_atomically(tmp: Path, final: Path) -> Path:
    """Rename a finished temporary file or folder into place, so a killed generator never
    leaves a half-written input that a later run would trust; then seal it."""
    os.replace(tmp, final)
    seal(final)
    return final


# --- sealed inputs: handed out read-only, their content's hash checked around every process ---
def _seal_file(input_path: Path) -> Path:
    return input_path.with_name(input_path.name + ".seal")


def _files(input_path: Path) -> list[Path]:
    return sorted(p for p in input_path.rglob("*") if p.is_file()) if input_path.is_dir() else [input_path]


def _stamps(input_path: Path) -> list:
    """Cheap and hard to fake: any write (or utime, or chmod) moves a file's ctime."""
    return [[str(p.relative_to(input_path.parent)), p.stat().st_size, p.stat().st_ctime_ns, p.stat().st_ino]
            for p in _files(input_path)]


def _digest(input_path: Path) -> str:
    digest = hashlib.sha256()
    for path in _files(input_path):
        digest.update(str(path.relative_to(input_path.parent)).encode() + b"\0")
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    return digest.hexdigest()


def _read_only(input_path: Path, writable: bool = False) -> None:
    for path in [*_files(input_path), *(p for p in input_path.rglob("*") if p.is_dir()), input_path]:
        mode = path.stat().st_mode
        bits = stat.S_IWUSR if writable else ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
        os.chmod(path, (mode | bits) if writable else (mode & bits))


def seal(input_path: Path) -> None:
    """Makes an input read-only and records its hash (and its files' stamps) beside it."""
    _read_only(input_path)
    tmp = _seal_file(input_path).with_name(f"{_seal_file(input_path).name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"sha256": _digest(input_path), "stamps": _stamps(input_path)}))
    os.replace(tmp, _seal_file(input_path))


def _sealed_ancestor(argument: object) -> Path | None:
    """The cached input an argument names: the entry of the cache (a file, or a folder such as
    a document set) that holds it, which is made, sealed and discarded as one."""
    if not isinstance(argument, str):
        return None
    root, path = cache_root(), Path(argument)
    try:
        top = root / path.relative_to(root).parts[0]
    except (ValueError, IndexError):
        return None
    return top if top.exists() and not top.name.endswith((".seal", ".tmp")) else None


def changed(arguments: dict) -> list[str]:
    """Each cached input among a process's arguments whose content is no longer what was made,
    described; an input without a seal yet (an older cache) is sealed now."""
    problems = []
    for input_path in {p for p in map(_sealed_ancestor, arguments.values()) if p is not None}:
        try:
            recorded = json.loads(_seal_file(input_path).read_text())
        except (OSError, ValueError):
            seal(input_path)
            continue
        try:
            if _stamps(input_path) == recorded["stamps"]:
                continue
            now = _digest(input_path)
        except OSError:
            now = "missing"
        if now == recorded["sha256"]:
            seal(input_path)           # touched, not changed
        else:
            problems.append(f"{input_path.name} (sha256 {recorded['sha256'][:12]}…, now {now[:12]}…)")
    return problems


def discard_changed(arguments: dict) -> None:
    """Removes every changed input among the arguments, so that the next case makes it anew."""
    for input_path in {p for p in map(_sealed_ancestor, arguments.values()) if p is not None}:
        if changed({"input": str(input_path)}):
            if input_path.is_dir():
                _read_only(input_path, writable=True)
                shutil.rmtree(input_path, ignore_errors=True)
            else:
                input_path.unlink(missing_ok=True)
            _seal_file(input_path).unlink(missing_ok=True)
