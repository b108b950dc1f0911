"""Entry point of `impls/python/run`: the workload registry and the `--list` description."""
from __future__ import annotations

import importlib
import sys

from .protocol import Model, Outcome, Workload, main

NOOP = Workload(name="noop", params=(), models={
    "seq": Model("seq", lambda job: Outcome(0, lambda: "noop"),
                 note="nothing in the timed region: interpreter boot and protocol overhead"),
})

# Imported only when named, so a run (and noop's start-up figure) pays for the modules its
# workload uses, as a single-purpose program would; --list imports them all.
WORKLOAD_MODULES = {
    "keygen": "parbench_py.workloads.keygen",
    "sdes-ecb": "parbench_py.workloads.sdes_ecb",
    "batch-job": "parbench_py.workloads.batch_job",
    "spawn-chain": "parbench_py.workloads.spawn_chain",
    "coroutine-swarm": "parbench_py.workloads.coroutine_swarm",
    "echo-server": "parbench_py.workloads.echo_server",
}


def load_workloads(names) -> dict[str, Workload]:
    workloads = {"noop": NOOP}
    for name in names:
        if name in WORKLOAD_MODULES:
            workloads[name] = importlib.import_module(WORKLOAD_MODULES[name]).WORKLOAD
    return workloads


def describe_runtime() -> dict:
    import platform

    from importlib.metadata import version as package_version

    from . import dask_cluster, event_loops
    from .workloads import keygen
    workloads = load_workloads(WORKLOAD_MODULES)
    version = f"{platform.python_implementation()} {platform.python_version()}"
    if event_loops.UVLOOP_AVAILABLE:
        version += f", uvloop {event_loops.uvloop_version()}"
    if dask_cluster.available():
        version += f", distributed {package_version('distributed')}"
    else:
        print("python: distributed (Dask) is not installed; the dask models are left out", file=sys.stderr)
    return {
        "runtime": "python",
        "version": version,
        "flags": f"no interpreter flags; GIL on; sys.getswitchinterval()={sys.getswitchinterval()}; "
                 "multiprocessing start method fork",
        "sources": {"strong": keygen.STRONG_SOURCE},
        "workloads": {workload.name: _describe(workload) for workload in workloads.values()},
    }


def _describe(workload: Workload) -> dict:
    entry = {"params": [param.name for param in workload.params],
             "models": {name: model.describe() for name, model in workload.models.items()}}
    if workload.kernels:
        entry["kernels"] = dict(workload.kernels)
    if workload.unavailable:
        entry["models_unavailable"] = dict(workload.unavailable)
    return entry


if __name__ == "__main__":
    arguments = sys.argv[1:]
    every_name = ["noop", *WORKLOAD_MODULES]
    sys.exit(main(arguments, load_workloads(arguments[:1]) if arguments[:1] else {"noop": NOOP},
                  describe_runtime, every_name))
