"""What `parbench compare` compares: two --export-json files, or two runs of a store (ids, a
baseline and a run, or the newest complete run of two machines), each analyzed afresh and with
its own sitting's drift line (nothing is normalised: each side shows its own sentinel)."""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from parbench.analysis.case_results import analyze
from parbench.errors import PipelineError
from parbench.export import json_format
from parbench.records import RunRecord
from parbench.report.rows import drift_line
from parbench.store import Store
from parbench.store.analyzed import all_analyses, load_analyzed
from parbench.store.database import StoreError

Side = tuple[RunRecord, str]          # a run and its drift line ("" without a sentinel)


def comparands(runs: tuple[str, ...], baseline: str | None, machines: tuple[str, ...],
               open_store: Callable[[], Store]) -> tuple[Side, Side]:
    """(A, B); PipelineError with the usage that was meant for a combination that means nothing."""
    if runs and all(r.endswith(".json") for r in runs):
        if len(runs) != 2 or baseline or machines:
            raise PipelineError("compare of exported files takes exactly two .json files (and no --baseline or --machine)")
        return _from_export(Path(runs[0])), _from_export(Path(runs[1]))
    store = open_store()
    try:
        a, b = [_from_store(store, ref) for ref in _references(store, runs, baseline, machines)]
    except StoreError as error:
        raise PipelineError(str(error)) from None
    return a, b


def _references(store: Store, runs: tuple[str, ...], baseline: str | None, machines: tuple[str, ...]) -> list:
    if machines:
        if len(machines) != 2 or runs or baseline:
            raise PipelineError("--machine takes two machines (--machine A --machine B) and no run ids")
        return [store.latest_run_on(host) for host in machines]
    if baseline:
        if len(runs) > 1:
            raise PipelineError("--baseline NAME compares one run (default: the latest) against it")
        return [store.baseline(baseline), runs[0] if runs else "latest"]
    if len(runs) == 2:
        return list(runs)
    raise PipelineError("compare wants two runs (A B), --baseline NAME [B], two .json exports, "
                        "or --machine A --machine B")


def _from_export(path: Path) -> Side:
    try:
        record = json_format.read(path)[-1]
    except json_format.NotAnExport as error:
        raise PipelineError(str(error)) from None
    record.results = analyze([r.run for r in record.results], record.machine.get("logical_cpus"))
    return record, drift_line(json_format.read_analyses(path, record.id))


def _from_store(store: Store, reference) -> Side:
    record = load_analyzed(store, reference)
    return record, drift_line(all_analyses(store, record))
