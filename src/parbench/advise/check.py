"""`advise --check`: the recommended and the runner-up cases of each ranking run at the asked
value and cores (through `parbench run`, stored like any run), their measured medians set
against the predicted intervals."""
from __future__ import annotations

from dataclasses import dataclass

from parbench.advise import measure
from parbench.advise.advice import Advice
from parbench.advise.predict import Band, Prediction
from parbench.advise.evidence import NoFigure, figure_of
from parbench.analysis import stats
from parbench.records import RunRecord
from parbench.store import open_store

CHECKED_PER_RANKING = 2


@dataclass
class CheckRow:
    prediction: Prediction
    measured: Band | None
    note: str = ""                     # why it was not measured, or how it failed

    @property
    def inside(self) -> bool | None:
        if self.measured is None:
            return None
        return self.prediction.time.low <= self.measured.median <= self.prediction.time.high


def run_arguments(advice: Advice, prediction: Prediction) -> tuple[str, ...]:
    q = advice.question
    arguments = ("run", "--workload", q.workload, "--runtime", prediction.runtime, "--model", prediction.model,
                 "--param", f"{q.param}={q.value}")
    for name, value in sorted(prediction.context.items()):
        arguments += ("--param", f"{name}={value}")
    return arguments + (("--workers", str(prediction.workers)) if prediction.workers else ())


def _measured(records: list[RunRecord], advice: Advice, prediction: Prediction) -> Band | None:
    """The checked case's median and CI of the figure the advice answers, from the runs the check
    added to the store; None where that run has none of it."""
    wanted = (prediction.runtime, prediction.model, advice.question.value, prediction.workers)
    for record in records:
        for result in record.results:
            case = result.run.case
            if (case.runtime, case.model, case.params.get(advice.question.param), case.workers) == wanted \
                    and result.run.status == "ok":
                found = stats.case_stats(result.run, record.machine.get("logical_cpus"))
                if found:
                    try:
                        median, low, high, _ = figure_of(result.run, advice.question.answers, found)
                    except NoFigure:
                        return None
                    return Band(median, low, high)
    return None


def check_one(advice: Advice, prediction: Prediction, db: str, extra: tuple[str, ...]) -> CheckRow:
    if prediction.workers and prediction.workers > advice.cpus:
        return CheckRow(prediction, None, f"×{prediction.workers} needs more than this machine's {advice.cpus} CPUs")
    store = open_store(db)
    before = set(store.run_ids())
    code = measure.parbench(run_arguments(advice, prediction), db, extra)
    added = [store.load_run(run_id) for run_id in store.run_ids() if run_id not in before]
    measured = _measured(added, advice, prediction)
    if measured is None:
        return CheckRow(prediction, None, f"parbench run exited {code} without a verified result")
    return CheckRow(prediction, measured)


def check(advice: Advice, db: str, extra: tuple[str, ...] = ()) -> list[CheckRow]:
    """Runs the first CHECKED_PER_RANKING entries of every ranking; `extra` are run options."""
    return [check_one(advice, entry.prediction, db, extra)
            for ranking in advice.rankings for entry in ranking.entries[:CHECKED_PER_RANKING]]
