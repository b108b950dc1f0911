"""What the suite and sweep kinds derive alike from a `Request`: the runtimes described, the
runner's settings, the run record and the start-up cases."""
from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

from parbench.errors import PipelineError
from parbench.measure import bench_user
from parbench.measure import machine as metadata
from parbench.measure.runner import Settings
from parbench.measure.runtimes import Description, Runtime
from parbench.plan.cases import SCALE_DEFAULTS, Plan, Request
from parbench.records import Case, RunRecord, now

MEMORY_SHARE = 0.75          # a case may use this share of the machine's memory by default


def describe_runtimes(runtimes: dict[str, Runtime], wanted: list[str]) -> tuple[dict[str, Description], list[str]]:
    """`run --list` of each wanted runtime that is installed and built; skip lines for the rest."""
    described, skipped = {}, []
    for name in wanted:
        runtime = runtimes[name]
        if not runtime.available:
            skipped.append(f"{name}: skipped — {runtime.why_unavailable()}")
            continue
        try:
            described[name] = runtime.description()
        except (RuntimeError, OSError, ValueError) as error:
            skipped.append(f"{name}: skipped — not runnable ({error}); build it with `parbench build --runtime {name}`")
    return described, skipped


def startup_cases(plan: Plan, described: dict[str, Description]) -> list[Case]:
    """One `noop` case per runtime in the plan: its boot and the harness's overhead, measured apart."""
    cases = []
    for name in dict.fromkeys(c.runtime for c in plan.cases):
        models = described[name].models_of("noop") if name in described else {}
        if models:
            cases.append(Case("noop", name, next(iter(models)), "seq", {}))
    return cases


def new_record(request: Request, described: dict[str, Description], kind: str, settings: Settings) -> RunRecord:
    """The run's record; who ran its benchmarks is the user settings_for chose."""
    return RunRecord(id=None, started_at=now(), scale=request.scale, options=asdict(request),
                     machine={**metadata.machine(), "benchmark_user": bench_user.described(settings.user)},
                     runtimes={name: d.info for name, d in described.items()}, kind=kind)


def default_memory_limit_kb() -> int | None:
    """MEMORY_SHARE of this machine's memory; None where /proc/meminfo does not say."""
    try:
        total_kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()
                        if line.startswith("MemTotal"))
    except (OSError, StopIteration, ValueError):
        return None
    return int(total_kb * MEMORY_SHARE)


def settings_for(request: Request) -> Settings:
    limit = request.memory_limit_kb
    try:
        user = bench_user.for_run(request.as_root)
    except bench_user.NoBenchUser as error:
        raise PipelineError(str(error)) from None
    warmup = request.setting("warmup")
    return Settings(processes=request.setting("processes"), warmup=None if warmup == "auto" else int(warmup),
                    warmup_budget=request.setting("warmup_budget"),
                    warmup_max=SCALE_DEFAULTS[request.scale]["warmup_max"],
                    repeat=request.setting("repeat"), timeout=request.setting("timeout"),
                    budget=request.setting("budget"), target_ci=request.setting("target_ci"),
                    memory_limit_kb=default_memory_limit_kb() if limit is None else (limit or None),
                    order=request.order, seed=request.seed, user=user,
                    min_processes=min(SCALE_DEFAULTS[request.scale]["min_processes"], request.setting("processes")))
