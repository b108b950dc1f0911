"""What an advice lacks and the exact `parbench sweep` that measures it; `--measure` runs those
very commands (the sweep machinery itself, as a user would run it) before answering again."""
from __future__ import annotations

import shlex
import subprocess
import sys
from dataclasses import dataclass

from parbench.advise.predict import Prediction, Unpredictable
from parbench.advise.question import Question
from parbench.measure import liveness
from parbench.workloads import Workload

# A sweep towards the asked value starts this many times below it, in steps of SWEEP_FACTOR:
# three points, enough for a line and its CI, the largest one the value itself.
SWEEP_SPAN, SWEEP_FACTOR = 16, 4


@dataclass(frozen=True)
class Missing:
    reason: str
    arguments: tuple[str, ...]          # `parbench` arguments, without --db

    def command(self, db: str | None = None) -> str:
        return "./parbench " + shlex.join(self.arguments + (("--db", db) if db else ()))


def _filters(q: Question) -> tuple[str, ...]:
    out: tuple[str, ...] = ("--workload", q.workload)
    for runtime in q.runtimes:
        out += ("--runtime", runtime)
    for name, value in sorted(q.context.items()):
        out += ("--param", f"{name}={value}")
    return out


def _along_sweep(q: Question, predictions: list[Prediction], workload: Workload) -> Missing | None:
    """A size or task-count sweep up to the asked value, where a prediction extrapolated to it."""
    far = [p for p in predictions if p.extrapolated]
    if not far:
        return None
    lowest = max(1, q.value // SWEEP_SPAN)
    reason = (f"{len(far)} prediction(s) extrapolate to {q.param}={q.value:,} beyond the measured "
              f"{q.param}s (e.g. {far[0].name})")
    if "size" in workload.sweeps.values():
        return Missing(reason, ("sweep", "size") + _filters(q) + ("--from", str(lowest), "--to", str(q.value),
                                                                    "--factor", str(SWEEP_FACTOR)))
    counts = sorted({lowest, max(1, q.value // SWEEP_FACTOR), q.value})
    return Missing(reason, ("sweep", "tasks") + _filters(q) + ("--counts", ",".join(map(str, counts))))


def _worker_sweep(q: Question, lacking: list[Unpredictable], cpus: int) -> Missing | None:
    if not lacking:
        return None
    top = min(q.cores, cpus)
    counts = sorted({1, top} | {2 ** i for i in range(top.bit_length()) if 2 ** i <= top})
    reason = f"{len(lacking)} model(s) have no worker sweep to predict ×{q.cores} from" + (
        f" (beyond this machine's {cpus} CPUs a sweep here fits the law; only a larger machine "
        "measures it)" if q.cores > cpus else "")
    return Missing(reason, ("sweep", "workers") + _filters(q) + ("--param", f"{q.param}={q.value}",
                                                                    "--workers", ",".join(map(str, counts))))


def missing_sweeps(q: Question, predictions: list[Prediction], lacking: list[Unpredictable], cpus: int,
                   workload: Workload) -> list[Missing]:
    """The sweeps that would turn extrapolations into measurements and unpredicted models into predictions."""
    return [m for m in (_along_sweep(q, predictions, workload), _worker_sweep(q, lacking, cpus)) if m is not None]


def parbench(arguments: tuple[str, ...], db: str, extra: tuple[str, ...] = ()) -> int:
    """Runs `parbench ARGUMENTS --db DB`; its exit code. Its output goes to standard error, so
    that standard output holds only the advice (or its JSON with --export-json -). A signal to
    advise reaches the sweep as the same signal, which then stops as a sweep does (its cases
    kept, its line printed); advise waits for that and stops too, as it does when the sweep
    itself was stopped."""
    child = subprocess.Popen([sys.executable, "-m", "parbench", *arguments, *extra, "--db", db],
                             stdin=subprocess.DEVNULL, stdout=sys.stderr.fileno())
    try:
        code = child.wait()
    except KeyboardInterrupt as interruption:
        signum = liveness.signal_of(interruption)
        child.send_signal(signum)
        child.wait()
        # The sweep has printed what it stored; advise's own line must not say otherwise.
        raise liveness.Stopped(signum, told=True) from None
    stopped = liveness.stopped_by_exit_code(code)
    if stopped is not None:
        raise stopped
    return code
