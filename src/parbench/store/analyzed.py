"""A stored run read back for its reports: statistics recomputed from its raw samples, and its
analyses (what was stored with it, what is derived afresh from any run)."""
from __future__ import annotations

from parbench.analysis.case_results import analyze
from parbench.analysis.command_sweeps import analyze_commands
from parbench.analysis.derived import analyze_run, reanalyze
from parbench.analysis.drift import drift
from parbench.analysis.results import typed
from parbench.records import Analysis, RunRecord
from parbench.store.database import Store
from parbench.workloads import load_all


def load_analyzed(store: Store, reference) -> RunRecord:
    """A stored run with its statistics recomputed from the raw samples (deterministic)."""
    record = store.load_run(store.resolve(reference))
    record.results = analyze([r.run for r in record.results], record.machine.get("logical_cpus"))
    return record


def all_analyses(store: Store, record: RunRecord) -> list[Analysis]:
    """A run's stored sweep analyses, and those computed from any run (Amdahl from CPU and I/O
    shares, the start-up split), which are derived afresh so they always match the stored samples;
    the sentinel's readings become the sitting's one drift line. Every result typed
    (analysis/results.py): what the renderers read."""
    fresh = (reanalyze(record, lambda workload: load_all()[workload].swept_param) if record.kind == "sweep"
             else analyze_commands(record) if record.kind == "exec" else [])
    names = {name for name, _, _ in fresh}
    stored = [a for a in store.load_analyses(record.id) if a[0] not in names]
    readings = [result for name, _, result in stored if name == "sentinel"]
    sitting = drift(readings)
    stored = [typed(a) for a in stored if a[0] != "sentinel"]
    return ([Analysis("drift", "sitting", sitting)] if sitting else []) + stored + fresh + analyze_run(record)


def load_reports(store: Store, references: list[str]) -> list[tuple[RunRecord, list[Analysis]]]:
    """The runs asked for (default: the latest), analyzed, each once, with their analyses."""
    reports: list[tuple[RunRecord, list[Analysis]]] = []
    for reference in references or [None]:
        record = load_analyzed(store, reference)
        if all(existing.id != record.id for existing, _ in reports):
            reports.append((record, all_analyses(store, record)))
    return reports
