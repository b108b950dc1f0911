"""Entry point of `impls/python/run`: the workload registry and the `--list` description."""
from __future__ import annotations

import platform
import sys

from . import batch_job, coroutine_swarm, keygen, sdes_ecb, spawn_chain
from .event_loops import UVLOOP_AVAILABLE, uvloop_version
from .protocol import Model, Outcome, Workload, main

NOOP = Workload(name="noop", params=(), models={
    "seq": Model("seq", lambda job: Outcome(0, lambda: "noop"),
                 note="nothing in the timed region: interpreter boot and protocol overhead"),
})

WORKLOADS = {workload.name: workload for workload in (
    NOOP, keygen.WORKLOAD, sdes_ecb.WORKLOAD, batch_job.WORKLOAD, spawn_chain.WORKLOAD, coroutine_swarm.WORKLOAD)}


def describe_runtime() -> dict:
    version = f"{platform.python_implementation()} {platform.python_version()}"
    if UVLOOP_AVAILABLE:
        version += f", uvloop {uvloop_version()}"
    return {
        "runtime": "python",
        "version": version,
        "flags": f"no interpreter flags; GIL on; sys.getswitchinterval()={sys.getswitchinterval()}; "
                 "multiprocessing start method fork",
        "sources": {"strong": keygen.STRONG_SOURCE},
        "workloads": {
            workload.name: {
                "params": [param.name for param in workload.params],
                "models": {name: model.describe() for name, model in workload.models.items()},
            }
            for workload in WORKLOADS.values()
        },
    }


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], WORKLOADS, describe_runtime))
