"""What a running suite prints as it goes: one line per finished case (its median so far, the
CI's width, how many processes and why it stopped), and each table as soon as its cases are done,
whether or not the output is a terminal (CI logs, `| tee`)."""
from __future__ import annotations

from rich.console import Console

from parbench.analysis.case_results import analyze
from parbench.escaping import one_line, styled
from parbench.measure.schedule import Progress
from parbench.records import Case, CaseRun
from parbench.report.console import print_group
from parbench.report.rows import Group, check_mark
from parbench.units import format_duration


def case_line(run: CaseRun, cores: int | None) -> str:
    """`✓ rust rayon ×2  WORKLOAD cipher=table size=1048576  1.23 ms ±1.8%  3 processes (converged)`."""
    case = run.case
    params = " ".join(f"{k}={v}" for k, v in case.params.items())
    where = one_line(f"{case.workload} {params}".strip())
    label = one_line(case.label)
    if run.status != "ok":
        return f"✗ {label:<26} {where}: {run.status}: {one_line(run.reason[:160])}"
    result = analyze([run], cores)[0]
    s = result.stats
    processes = sum(1 for p in run.processes if p.index >= 0)
    stopped = run.flags.get("stopped", "")
    if s is None:
        return f"? {label:<26} {where}: no verified repetition"
    half = (s.median_ci_ns[1] - s.median_ci_ns[0]) / 2
    width = f"±{100 * half / s.median_ns:.1f}%" if s.median_ns else "±?"
    return (f"{check_mark(case)} {label:<26} {where}  {format_duration(s.median_ns)} {width}  "
            f"{processes} process{'es' if processes != 1 else ''}" + (f" ({stopped})" if stopped else ""))


def live_progress(console: Console, cores: int | None, tables: bool = True) -> Progress:
    def started(case: Case) -> None:
        pass

    def done(run: CaseRun) -> None:
        colour = "" if run.status == "ok" else "yellow" if run.status == "limit" else "red"
        line = case_line(run, cores)
        console.print(styled((line, colour or "")), highlight=False, soft_wrap=True)

    def group_done(runs: list[CaseRun]) -> None:
        if not tables or not runs or runs[0].case.workload == "noop":
            return
        results = analyze(runs, cores)
        console.print()
        print_group(Group(runs[0].case.workload, runs[0].case.params, sorted(
            results, key=lambda r: (r.stats is None, r.stats.median_ns if r.stats else 0))), console)

    return Progress(started, done, group_done)
