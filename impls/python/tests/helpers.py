"""Shared test helpers: running a model the way the protocol does, without the command line."""
from __future__ import annotations

from parbench_py.protocol import Job, Workload


def run_model(workload: Workload, model: str, params: dict, workers: int | None = 2) -> tuple[int, str, dict]:
    """(items, checksum, extra) of one repetition of `model` with the workload's defaults filled in;
    extra holds the ceiling's fields too, timed after the checksum as the protocol does."""
    full = {p.name: p.default for p in workload.params}
    if workload.variant is not None:
        full.setdefault(workload.variant, 0)   # start / salt: the base value (protocol 3 reads it from stdin)
    if workload.kernels:
        full["kernel"] = "portable"
    full.update(params)
    loaded, _ = workload.load(full)
    chosen = workload.models[model]
    outcome = chosen.run(Job(full, loaded, workers if chosen.workers else None))
    checksum, extra = outcome.finish()
    return outcome.items, checksum, extra


def in_process_models(workload: Workload) -> list[str]:
    """The models that run without a session (a cluster): tests/test_dask.py covers the others."""
    return [name for name, model in workload.models.items() if model.session is None]
