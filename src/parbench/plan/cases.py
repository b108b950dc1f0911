"""Stage 1: from the user's filters and a scale, the list of cases to run (and what is skipped)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from parbench.measure.runtimes import Description, Model, Offer, Runtime
from parbench.records import Case
from parbench.workloads import SCALES, SpecError, Workload, check_params, choose, expand, footprint, in_report_order

# Defaults per scale: smoke keeps `make test` fast; quick and seed take enough samples for CIs.
# `processes` is the most a case gets: it stops earlier once the 95% CI of its median is within
# ±target_ci, or once past `budget` seconds, never below `min_processes` (a CI from two processes
# is rough: the published scales take three at least, and the reports say when one has two).
# quick times 2 repetitions a process after its warm-up: three fresh processes at least are what
# the CI rests on, and a third repetition cost `make bench` two minutes on 2 cores (522 s against
# its 8-minute answer, docs/many-cores.md).
# A case stops adding processes past `budget` seconds (its third process at least): at quick,
# 2 s keeps five processes for the cases that cost little and three for the rest, which with a
# warm-up per process keeps `make bench` within its 8 minutes (4 s took 54 s more, 2026-11-28).
# warmup "auto": each process warms up until its times settle (protocol 4, docs/methodology.md),
# within warmup_budget seconds and warmup_max repetitions; smoke checks answers, not speed, so it
# keeps the fixed count that costs `make test` least.
SCALE_DEFAULTS = {
    "smoke": {"processes": 2, "warmup": 0, "repeat": 3, "timeout": 120, "budget": None, "target_ci": None,
              "min_processes": 2, "warmup_budget": 0.5, "warmup_max": 40},
    "quick": {"processes": 5, "warmup": "auto", "repeat": 2, "timeout": 600, "budget": 2, "target_ci": 0.03,
              "min_processes": 3, "warmup_budget": 0.5, "warmup_max": 40},
    "seed": {"processes": 5, "warmup": "auto", "repeat": 3, "timeout": 7200, "budget": 900, "target_ci": 0.03,
             "min_processes": 3, "warmup_budget": 10, "warmup_max": 200},
}
ORDERS = ("interleaved", "shuffled", "sequential")


@dataclass
class Request:
    """What the user asked `parbench run` for, in plain data (stored with the run)."""
    scale: str = "quick"
    workloads: tuple[str, ...] = ()
    runtimes: tuple[str, ...] = ()
    models: tuple[str, ...] = ()
    params: dict[str, Any] = field(default_factory=dict)
    workers: tuple[int, ...] = ()
    processes: int | None = None
    warmup: int | str | None = None         # a count, or "auto" (a steady state, protocol 4)
    repeat: int | None = None
    warmup_budget: float | None = None      # seconds a process's steady-state search may take
    timeout: float | None = None
    budget: float | None = None
    target_ci: float | None = None
    memory_limit_kb: int | None = None      # None: the default share of memory; 0: no limit
    order: str = "interleaved"
    seed: int = 0                           # the shuffle's seed, stored with the run
    as_root: bool = False                   # under root, run benchmarks as root (bench_user.py)

    def setting(self, name: str):
        value = getattr(self, name)
        return SCALE_DEFAULTS[self.scale][name] if value is None else value


@dataclass
class Plan:
    cases: list[Case]
    skipped: list[str]          # one human line per runtime, workload or model left out
    workloads: list[str] = field(default_factory=list)      # the workloads chosen (noop aside), in report order

    def nothing_to_run(self, also_skipped: list[str] = ()) -> str:
        """The refusal of a plan without cases, naming why each thing asked for was left out
        (a model without the start mode asked, a runtime not installed…), not a guess."""
        reasons = list(also_skipped) + self.skipped
        if not reasons:
            return "nothing to run: no installed runtime offers the requested workload/model"
        return "nothing to run: " + "; ".join(reasons[:4]) + (f"; and {len(reasons) - 4} more" if len(reasons) > 4 else "")


def choose_runtimes(request: Request, runtimes: dict[str, Runtime]) -> list[str]:
    """The runtimes the request names (all of them if none); SpecError for an unknown name.
    The only check of runtime names: the kinds describe these, and make_plan plans over them."""
    return choose(request.runtimes, runtimes, "runtime")


def make_plan(request: Request, workloads: dict[str, Workload], runtimes: dict[str, Runtime],
              described: dict[str, Description]) -> Plan:
    """The cases of the chosen runtimes that are installed (`described`: their `run --list`, from
    choose_runtimes; the others are skip lines already). Workload, model and param names are
    checked here, once."""
    if request.scale not in SCALES:
        raise SpecError(f"unknown scale '{request.scale}'; valid: {', '.join(SCALES)}")
    if request.order not in ORDERS:
        raise SpecError(f"unknown order '{request.order}'; valid: {', '.join(ORDERS)}")
    chosen_workloads = [name for name in choose(request.workloads, workloads, "workload") if name != "noop"]
    _check_models(request.models, chosen_workloads, described)
    _check_params(request.params, chosen_workloads, workloads, described)
    check_params(workloads, chosen_workloads, request.params)
    skipped: list[str] = []
    if not request.workloads:       # the whole suite: without the workloads that join it only when named
        left_out = [name for name in chosen_workloads if request.scale not in workloads[name].unnamed_scales]
        skipped += [f"{name}: left out of the {request.scale} suite (its cases take minutes there); name it to "
                    f"run it: --workload {name}" for name in left_out]
        chosen_workloads = [name for name in chosen_workloads if name not in left_out]
    cases: list[Case] = []
    for runtime_name in described:
        offered = described[runtime_name].workloads
        for workload_name in chosen_workloads:
            if workload_name not in offered:
                if request.workloads:
                    skipped.append(f"{runtime_name}: does not implement {workload_name}")
                continue
            applicable = _params_of(workloads[workload_name], described)
            refused = [k for k in request.params if k in applicable
                       and k not in workloads[workload_name].params
                       and k not in offered[workload_name].param_names]
            if refused:
                skipped.append(f"{runtime_name}: {workload_name} takes no --{', --'.join(refused)}")
                continue
            skipped += _starts_unavailable(request, runtime_name, workload_name, offered[workload_name])
            missing = _kernels_missing(request, workloads[workload_name], offered[workload_name])
            if missing:
                skipped.append(f"{runtime_name}: {workload_name} has no {' or '.join(missing)} kernel "
                               f"(it offers {', '.join(offered[workload_name].kernels) or 'portable only'})")
            cases += _cases_for(request, workloads[workload_name], runtimes[runtime_name],
                                offered[workload_name])
    _check_footprints(cases, workloads)
    order = in_report_order(chosen_workloads, workloads)
    return Plan(sorted(cases, key=lambda c: order.index(c.workload)), skipped, order)


def _check_footprints(cases: list[Case], workloads: dict[str, Workload]) -> None:
    """Every parameter set's input and oracle fit this machine's free disk and memory, else
    SpecError with the figure: refused before anything is built or stored."""
    seen = set()
    for case in cases:
        key = (case.workload, tuple(sorted(map(str, case.params.items()))))
        if case.workload in workloads and key not in seen:
            seen.add(key)
            why = footprint.problem(workloads[case.workload], case.params)
            if why:
                raise SpecError(why)


def _cases_for(request: Request, workload: Workload, runtime: Runtime, offer: Offer) -> list[Case]:
    """The scale's cases (each runtime's size overrides applied), and first the scale's common
    parameter set, which every runtime runs exactly as it is: the row that compares runtimes."""
    base = dict(workload.scales[request.scale])
    base.update({k: v for k, v in request.params.items() if k in workload.params or k in offer.param_names})
    common = workload.common.get(request.scale, {})
    chosen = [] if not common or any(k in request.params for k in common) else [
        (params, True) for params in expand({**base, **common})]
    chosen += [(params, False) for params in expand(base)]
    cases: dict[str, Case] = {}
    for params, is_common in chosen:
        if "kernel" in params and params["kernel"] not in (offer.kernels or {"portable": ""}):
            continue          # make_plan says so once per runtime and workload
        for model_name, model in offer.models.items():
            if request.models and model_name not in request.models:
                continue
            if model.family == "seq" and any(params.get(k) != v for k, v in workload.seq_only_when.items()):
                continue
            # The common row compares every runtime on the very same parameters: a runtime's
            # overrides (a slow one's other size) shape only its own rows. The common sets are
            # sized for the slowest runtime (workloads/*.toml), so none needs another size there.
            shown, reasons = (params, []) if is_common else _apply_overrides(runtime, workload.name, model_name,
                                                                             request, params)
            for start in _start_modes(request, model):
                with_start = {**shown, "start": start} if start else shown
                for workers in _worker_counts(request, model):
                    case = Case(workload.name, runtime.name, model_name, model.family, with_start, workers,
                                tuple(reasons), model.note)
                    cases.setdefault(case.key, case)
    return list(cases.values())


def _start_modes(request: Request, model: Model) -> list[str | None]:
    """The start modes a model runs (protocol 3): those asked for with `--param start=…` that it
    offers, else its default; [None] for a model that takes none (seq models, chains, swarms)."""
    if not model.starts:
        return [None]
    asked = request.params.get("start")
    if asked is None:
        return [model.default_start]
    return [mode for mode in (asked if isinstance(asked, list) else [asked]) if mode in model.starts]


def _apply_overrides(runtime: Runtime, workload: str, model: str, request: Request,
                     params: dict[str, Any]):
    """runtime.toml's [[scale_override]]s, unless the user set that param explicitly.
    `when` matches params, and `model` too (one model may be far slower than the others)."""
    reasons = []
    for override in runtime.scale_overrides:
        if override.get("scale") != request.scale or override.get("workload") != workload:
            continue
        if any({**params, "model": model}.get(k) != v for k, v in override.get("when", {}).items()):
            continue
        changed = {k: v for k, v in override.get("set", {}).items() if k not in request.params}
        if changed:
            params = {**params, **changed}
            reasons.append(f"{', '.join(f'{k}={v}' for k, v in changed.items())}: {override.get('why', '')}")
    return params, reasons


def _starts_unavailable(request: Request, runtime: str, workload: str, offer: Offer) -> list[str]:
    """One line per model that cannot run a start mode asked for, with the runtime's reason."""
    asked = request.params.get("start")
    asked = [] if asked is None else asked if isinstance(asked, list) else [asked]
    return [f"{runtime}: {workload} {name} has no {mode} start: "
            f"{model.start_unavailable.get(mode) or 'it does not offer it'}"
            for name, model in offer.models.items() if model.starts and (not request.models or name in request.models)
            for mode in asked if mode not in model.starts]


def _kernels_missing(request: Request, workload: Workload, offer: Offer) -> list[str]:
    """The kernel classes asked for that this runtime does not offer for the workload."""
    if "kernel" not in workload.params:
        return []
    asked = request.params.get("kernel", workload.scales[request.scale].get("kernel", []))
    asked = asked if isinstance(asked, list) else [asked]
    offered = offer.kernels or {"portable": ""}
    return [k for k in asked if k not in offered]


def _worker_counts(request: Request, model: Model) -> list[int | None]:
    if not model.workers:
        return [None]
    return list(request.workers) or [os.cpu_count() or 1]


def _check_models(models, workloads, described) -> None:
    offered = {m for d in described.values() for w in workloads for m in d.models_of(w)}
    choose(models, sorted(offered), "model")


def _params_of(workload: Workload, described) -> set[str]:
    """A workload's params plus every param some runtime's models add to it (chunk, …)."""
    names = set(workload.params)
    for d in described.values():
        if workload.name in d.workloads:
            names.update(d.workloads[workload.name].param_names)
    return names


START_PARAM = "start"      # protocol 3's start mode: a param of every model that offers one


def _check_params(params, chosen, workloads, described) -> None:
    valid = set().union(*(_params_of(workloads[name], described) for name in chosen)) | {START_PARAM}
    choose(tuple(params), sorted(valid), "param")
    asked = params.get(START_PARAM)
    for mode in [] if asked is None else asked if isinstance(asked, list) else [asked]:
        if mode not in ("cold", "warm"):
            raise SpecError(f"--param start wants cold or warm, got {mode!r}")
