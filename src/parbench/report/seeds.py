"""The five seed articles' published figures (docs/seeds.md) beside this machine's, as plain rows.

Each published figure names the runtime, model and params that reproduce it. A stored case
with those params gives a like-for-like total; a case at another scale is compared per item
(per key, per MB, per document, per process, per coroutine) and the row says so. A figure
with no stored case gets the exact `parbench` command that measures it — never a number.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from parbench.project import IMPLS_DIR
from parbench.records import CaseResult, RunRecord
from parbench.units import format_bytes, format_duration


@dataclass(frozen=True)
class Figure:
    """One number an article published, and the case that measures the same thing here."""
    label: str
    runtime: str
    model: str
    scale_param: str                     # the param that sets the amount of work (count, size, n…)
    scale_value: int | str
    per_item: float                      # items the published value is divided by (1e6 keys…)
    item: str                            # "key", "MB", "document", "process", "coroutine"
    published: float                     # ns for time figures, bytes for memory figures
    match: dict = field(default_factory=dict)   # other params the case must have (cipher, sleep_ms)
    kind: str = "time"                   # time | memory | limit
    limit_text: str = ""
    items_per_unit: float = 1            # e.g. 10 switches per coroutine: items = scale value × this
    command_params: dict = field(default_factory=dict)   # flags the command needs but a match does not


@dataclass(frozen=True)
class Seed:
    number: str
    workload: str
    title: str
    system: str
    cores: int
    figures: tuple[Figure, ...]
    point: str


MB = 1_000_000
SEEDS = (
    Seed("000", "keygen", "keygen: 1M strong random keys, Base32 (Elixir Flow)",
         "Apple M2 Max, 12 cores, Elixir 1.15.7 / OTP 26", 12, (
             Figure("sequential Enum.map, 1M keys", "elixir", "seq", "count", 1_000_000, 1e6, "key", 5.54e9),
             Figure("Flow (parallel), 1M keys", "elixir", "flow", "count", 1_000_000, 1e6, "key", 1.40e9),
         ), "parallel maps pay off for heavy CPU-bound items"),
    Seed("001", "sdes-ecb", "sdes-ecb: S-DES in ECB mode over 955 MB (Rust Rayon)",
         "Apple M1 Pro, 8 threads", 8, (
             Figure("serial iterator, 955 MB", "rust", "seq", "size", 955_000_000, 955.0, "MB", 102.64e9,
                    {"cipher": "bitwise"}),
             Figure("Rayon par_iter, 955 MB", "rust", "rayon", "size", 955_000_000, 955.0, "MB", 19.11e9,
                    {"cipher": "bitwise"}),
             Figure("serial, the four-line text", "rust", "seq", "size", "seed-article", 1, "run", 10.00e3,
                    {"cipher": "bitwise"}),
             Figure("Rayon, the four-line text", "rust", "rayon", "size", "seed-article", 1, "run", 133.81e3,
                    {"cipher": "bitwise"}),
         ), "there is a crossover input size below which parallel loses"),
    Seed("002", "batch-job", "batch-job: 800 documents, CPU + database (Ruby)",
         "4 cores, about 30 concurrent units", 4, (
             Figure("serial", "ruby", "seq", "docs", 800, 800, "document", 147e9),
             Figure("one Thread per document", "ruby", "thread", "docs", 800, 800, "document", 147e9),
             Figure("one forked process per document", "ruby", "fork", "docs", 800, 800, "document", 108e9),
             Figure("one Ractor per document", "ruby", "ractor", "docs", 800, 800, "document", 112e9),
         ), "the GIL, processes and actors differ; I/O bounds the speedup (Amdahl)"),
    Seed("003", "spawn-chain", "spawn-chain: a chain of N processes passing one integer",
         "4 cores; Elixir on OTP 19, Squeak, Ruby 2.4 on cygwin", 4, (
             Figure("Elixir spawn, 10k", "elixir", "spawn", "n", 10_000, 10_000, "process", 62e6),
             Figure("Elixir spawn, 40k", "elixir", "spawn", "n", 40_000, 40_000, "process", 156e6),
             Figure("Elixir spawn, 100k", "elixir", "spawn", "n", 100_000, 100_000, "process", 438e6),
             Figure("Elixir spawn, 1M (+P 1000000)", "elixir", "spawn", "n", 1_000_000, 1_000_000, "process", 4.344e9,
                    command_params={"max_processes": 1_000_000}),
             Figure("Elixir spawn, 400k without +P", "elixir", "spawn", "n", 400_000, 400_000, "process", 0,
                    {"max_processes": None}, kind="limit", limit_text="SystemLimitError: Too many processes (262,144 by default)"),
             Figure("Squeak fork + SharedQueue, 40k", "squeak", "fork", "n", 40_000, 40_000, "process", 382e6),
             Figure("Squeak fork + SharedQueue, 400k", "squeak", "fork", "n", 400_000, 400_000, "process", 3.526e9),
             Figure("Ruby Fiber#transfer chain, 40k", "ruby", "fiber", "n", 40_000, 40_000, "process", 22.9e9),
             Figure("Ruby Fiber chain above 50k", "ruby", "fiber", "n", 100_000, 100_000, "process", 0,
                    kind="limit", limit_text="fails above 50k fibers"),
         ), "per-process cost and the limits differ by orders of magnitude"),
    Seed("004", "coroutine-swarm", "coroutine-swarm: 100k asyncio coroutines (Python)",
         "Python 3.5, 2015", 1, (
             Figure("100k coroutines, start + finish", "python", "asyncio", "tasks", 100_000, 100_000,
                    "coroutine", 6.081e9, {"sleep_ms": 0}),
             Figure("1M switches (sleep 1 s between steps), total / switches", "python", "asyncio", "tasks",
                    100_000, 1_000_000, "switch", 51.435e9, {"sleep_ms": 1000}, items_per_unit=10),
             Figure("100k coroutines, memory (total / tasks)", "python", "asyncio", "tasks", 100_000, 100_000,
                    "coroutine", 146.86e6, {"sleep_ms": 0}, kind="memory"),
             Figure("100k coroutines with switches, memory", "python", "asyncio", "tasks", 100_000, 100_000,
                    "coroutine", 336.30e6, {"sleep_ms": 1000}, kind="memory"),
         ), "printing dominated the article's times; parbench folds lines into a digest"),
)


@dataclass
class SeedRow:
    """One published figure and what this machine measured for it, as display strings."""
    label: str
    published: str
    measured: str
    ratio: str
    explanation: str
    source: str          # which stored case gave the figure, or why there is none
    measured_ok: bool
    command: str = ""    # for a figure not measured yet: the command that measures it


def command_for(seed: Seed, figure: Figure) -> str:
    params = {figure.scale_param: figure.scale_value, **figure.match, **figure.command_params}
    shown = " ".join(f"--param {k}={v}" for k, v in params.items() if v is not None)
    return f"parbench run --workload {seed.workload} --runtime {figure.runtime} --model {figure.model} {shown}"


def _not_measured(seed: Seed, figure: Figure, published: str) -> SeedRow:
    missing = not (IMPLS_DIR / figure.runtime / "runtime.toml").exists()
    source = (f"no {figure.runtime} runtime in impls/ yet; once there, run:" if missing
              else "not in the runs of this report; run:")
    return SeedRow(figure.label, published, "not measured yet", "–", "", source, False,
                   command_for(seed, figure))


def _candidates(records: list[RunRecord], seed: Seed, figure: Figure) -> list[tuple[RunRecord, CaseResult]]:
    found = []
    for record in records:
        for result in record.results:
            c = result.case
            if (c.workload, c.runtime, c.model) != (seed.workload, figure.runtime, figure.model):
                continue
            if any(str(c.params.get(k)) != str(v) for k, v in figure.match.items()):
                continue
            if (figure.scale_value == "seed-article") != (c.params.get(figure.scale_param) == "seed-article"):
                continue
            found.append((record, result))
    return found


def _items_of(result: CaseResult, figure: Figure) -> float:
    value = result.case.params.get(figure.scale_param)
    if figure.scale_value == "seed-article":
        return 1.0
    return float(value) / MB if figure.item == "MB" else float(value) * figure.items_per_unit


def _format(value: float, kind: str) -> str:
    return format_bytes(value) if kind == "memory" else format_duration(value)


def _ratio_text(ratio: float) -> str:
    return f"{ratio:.2f}x slower here" if ratio >= 1 else f"{1 / ratio:.2f}x faster here"


def _limit_row(seed: Seed, figure: Figure, found) -> SeedRow:
    at_or_above = [(rec, r) for rec, r in found
                   if isinstance(r.case.params.get(figure.scale_param), int)
                   and r.case.params[figure.scale_param] >= figure.scale_value]
    if not at_or_above:
        return _not_measured(seed, figure, figure.limit_text)
    record, result = min(at_or_above, key=lambda p: p[1].case.params[figure.scale_param])
    n = result.case.params[figure.scale_param]
    if result.run.status == "ok":
        measured = f"ran at {figure.scale_param}={n:,}: {format_duration(result.stats.median_ns)}"
        why = "no limit here at that count (runtime flags raise it; see the runtime's flags)"
    else:
        measured = f"{result.run.status} at {figure.scale_param}={n:,}: {result.run.reason}"
        why = "the same kind of limit on this machine"
    return SeedRow(figure.label, figure.limit_text, measured, "–", why,
                   f"run {record.id}, {result.case.key}", result.run.status == "ok")


def compare_figure(seed: Seed, figure: Figure, records: list[RunRecord], cores: int) -> SeedRow:
    found = _candidates(records, seed, figure)
    if figure.kind == "limit":
        return _limit_row(seed, figure, found)
    published = _format(figure.published, figure.kind)
    per_published = figure.published / figure.per_item
    measured = [(rec, r) for rec, r in found if r.stats is not None
                and (figure.kind != "memory" or r.stats.peak_rss_kb)]
    if not measured:
        failed = next(((rec, r) for rec, r in found if r.run.status != "ok"), None)
        if failed:
            record, result = failed
            return SeedRow(figure.label, published, f"{result.run.status}: {result.run.reason}", "–",
                           "no timing on this machine: the case did not finish as verified",
                           f"run {record.id}, {result.case.key}", False)
        return _not_measured(seed, figure, published)
    # Same scale first; otherwise the largest run, whose per-item cost is least start-up bound.
    same = [(rec, r) for rec, r in measured if str(r.case.params.get(figure.scale_param)) == str(figure.scale_value)]
    record, result = (same or sorted(measured, key=lambda p: _items_of(p[1], figure)))[-1]
    value = 1024.0 * result.stats.peak_rss_kb if figure.kind == "memory" else result.stats.median_ns
    items = _items_of(result, figure)
    source = f"run {record.id} ({record.scale}), {result.case.key}"
    if same:
        ratio = value / figure.published
        shown = _format(value, figure.kind)
        scale_note = "same scale"
    else:
        ratio = (value / items) / per_published
        shown = (f"{_format(value / items, figure.kind)} per {figure.item} "
                 f"({_format(value, figure.kind)} for {result.case.params.get(figure.scale_param):,})")
        published = f"{published} ({_format(per_published, figure.kind)} per {figure.item})"
        scale_note = f"other scale: compared per {figure.item}"
        if items * figure.items_per_unit < figure.per_item / 10:
            scale_note += (f" at {result.case.params.get(figure.scale_param):,}, where fixed start-up costs "
                           "weigh far more per item than at the article's scale")
    return SeedRow(figure.label, published, shown, _ratio_text(ratio),
                   f"{scale_note}; {_explain(seed, figure, ratio, cores)}", source, True)


def _explain(seed: Seed, figure: Figure, ratio: float, cores: int) -> str:
    """One line on why the figures differ, from what is known about both machines."""
    parallel = figure.model not in ("seq",)
    if figure.kind == "memory":
        return ("both divide the whole process's peak RSS by the task count, so the interpreter's "
                "baseline is included; the per-task slope of a task sweep removes it")
    if seed.workload == "coroutine-swarm":
        return "the article printed every line (printing dominated); here lines go into a digest"
    if seed.workload == "spawn-chain":
        return ("process creation is mostly single-core work: the difference is the CPU and the "
                f"runtime version (article: {seed.system})")
    if figure.scale_value == "seed-article":
        return ("the tiny input measures start-up of the parallel machinery, not throughput"
                if parallel else "a few bytes: timer resolution and cache state dominate")
    if parallel and cores < seed.cores:
        return (f"{cores} logical CPUs here against {seed.cores} there: parallel speedup is bounded "
                f"by {cores}x here")
    if ratio >= 1:
        return f"one core of this CPU is slower at this work than the article's ({seed.system})"
    return f"one core of this CPU is faster at this work than the article's ({seed.system})"


def compare_seeds(records: list[RunRecord]) -> list[tuple[Seed, list[SeedRow]]]:
    cores = next((r.machine.get("logical_cpus") for r in records if r.machine.get("logical_cpus")), 1)
    return [(seed, [compare_figure(seed, figure, records, cores) for figure in seed.figures]) for seed in SEEDS]
