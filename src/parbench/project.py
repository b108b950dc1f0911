"""Where the project's folders are, wherever parbench is called from."""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(os.environ.get("PARBENCH_ROOT", Path(__file__).resolve().parents[2]))
WORKLOADS_DIR = ROOT / "workloads"
IMPLS_DIR = ROOT / "impls"
RESULTS_DIR = ROOT / "results"
DEFAULT_DB = RESULTS_DIR / "parbench.sqlite"


def cache_root() -> Path:
    """Where generated inputs live: $PARBENCH_CACHE, else .cache/inputs in the project's own
    checkout (not PARBENCH_ROOT's: a test's scratch root shares the one cache of inputs)."""
    configured = os.environ.get("PARBENCH_CACHE")
    if configured:
        return Path(configured)
    return Path(__file__).resolve().parents[2] / ".cache" / "inputs"
