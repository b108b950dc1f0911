"""The running harness's heartbeat: a thread that stamps its run every liveness.HEARTBEAT_S, on a
connection of its own, so that a harness elsewhere can tell a live run from a dead one."""
from __future__ import annotations

import threading

from parbench.measure import liveness
from parbench.store.database import open_store


class Heartbeat:
    def __init__(self, target: str, run_id: int, owner: str, every_s: float = liveness.HEARTBEAT_S):
        self.target, self.run_id, self.owner, self.every_s = target, run_id, owner, every_s
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="parbench-heartbeat", daemon=True)

    def start(self) -> "Heartbeat":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopped.set()

    def _beat(self) -> None:
        store = None
        while not self._stopped.wait(self.every_s):
            try:
                store = store or open_store(self.target)
                store.beat(self.run_id, self.owner)
            except Exception:      # noqa: BLE001 — a lost store: the next beat tries a fresh connection
                store = None
        if store is not None:
            store.close()
