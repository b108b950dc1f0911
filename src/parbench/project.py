"""Where the project's folders are, wherever parbench is called from."""
from __future__ import annotations

import os
from pathlib import Path

ROOT = Path(os.environ.get("PARBENCH_ROOT", Path(__file__).resolve().parents[2]))
WORKLOADS_DIR = ROOT / "workloads"
IMPLS_DIR = ROOT / "impls"
RESULTS_DIR = ROOT / "results"
DEFAULT_DB = RESULTS_DIR / "parbench.sqlite"
