"""Stage 4: the history of every run, appended and never overwritten (SQLite, or PostgreSQL)."""
from __future__ import annotations

from parbench.store.database import Store, open_store

LAYER = 5   # above analysis/ and measure/ (it reanalyzes and heartbeats), below advise/

__all__ = ["Store", "open_store"]
