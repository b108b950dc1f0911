"""The event loops the async models run on: asyncio's own and, where it is installed, uvloop's."""
from __future__ import annotations

import asyncio
from typing import Any, Coroutine

try:  # imported here, at start-up, so the import never lands inside a timed region
    import uvloop
except ImportError:
    uvloop = None

UVLOOP_AVAILABLE = uvloop is not None


def uvloop_version() -> str:
    return uvloop.__version__


def run_on(loop_name: str, coroutine: Coroutine) -> Any:
    """Runs the coroutine on a fresh loop of the named kind, so every repetition starts equal."""
    loop_factory = uvloop.new_event_loop if loop_name == "uvloop" else None
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        return runner.run(coroutine)
