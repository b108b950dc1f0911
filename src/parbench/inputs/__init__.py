"""Deterministic, seeded, cached inputs, so that every runtime works on the very same bytes."""
from __future__ import annotations

import os
from pathlib import Path


class InputError(OSError):
    """An input could not be made (a full disk, an unwritable cache); nothing partial is left."""


def cache_root() -> Path:
    """Where generated inputs live: $PARBENCH_CACHE, else .cache/inputs in the project."""
    configured = os.environ.get("PARBENCH_CACHE")
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[3] / ".cache" / "inputs"


def publish_atomically(tmp: Path, final: Path) -> Path:
    """Rename a finished temporary file or folder into place, so a killed generator never
    leaves a half-written input that a later run would trust."""
    os.replace(tmp, final)
    return final
