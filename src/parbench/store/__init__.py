"""Stage 4: the history of every run, appended and never overwritten (SQLite, or PostgreSQL)."""
from __future__ import annotations

from parbench.store.database import Store, open_store

__all__ = ["Store", "open_store"]
