"""A toy world for the planning and running tiers: one workload, two runtimes described as their
`run --list` would describe them, and a runner that measures nothing but answers like one."""
from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from parbench.measure.runner import Settings
from parbench.measure.runtimes import Description, Model, Offer, Runtime
from parbench.records import Case, ProcessMeasurement, Repetition
from parbench.workloads import Workload
from parbench.workloads.params import Integer

TOY_MODULE = SimpleNamespace(PARAMS={"n": Integer(1, 10 ** 9, "a term count")}, SWEPT_PARAM="n", ORDER=50,
                             expected_checksum=lambda params, variant=None: str(params["n"]),
                             expected_items=lambda params: int(params["n"]))


def toy_workload() -> Workload:
    return Workload("toy", "a toy", "(tests)", "terms", {"smoke": {"n": 10}, "quick": {"n": [100, 1000]},
                                                        "seed": {"n": 10 ** 6}}, {"n": 3}, TOY_MODULE)


def runtime(name: str, overrides: list[dict] | None = None) -> Runtime:
    return Runtime(name, name, Path("/nonexistent") / name, [], "true", "(tests)", [], overrides or [])


def description(name: str, models: dict[str, Model], params: tuple[str, ...] = ()) -> Description:
    return Description(name, "1", "", {}, {"toy": Offer(params, models)})


def world() -> tuple[dict, dict, dict]:
    """(workloads, runtimes, described): `fast` offers seq and a pool that takes workers,
    `slow` only seq and a `chunk` param of its own."""
    workloads = {"toy": toy_workload()}
    runtimes = {"fast": runtime("fast"), "slow": runtime("slow")}
    described = {"fast": description("fast", {"seq": Model("seq", "seq"), "pool": Model("pool", "threads", True)}),
                 "slow": description("slow", {"seq": Model("seq", "seq")}, params=("chunk",))}
    return workloads, runtimes, described


class ScriptedRunner:
    """A runner (schedule.ProcessRunner) whose processes take the times it is given, in turn, per case."""

    def __init__(self, times_ns: dict[str, list[int]], settings: Settings, failing: set[str] = frozenset()):
        self.times, self.settings, self.failing = {k: list(v) for k, v in times_ns.items()}, settings, failing
        self.workloads: dict = {}
        self.order: list[str] = []                    # case keys in the order their processes ran
        self.finished_groups: list[list[str]] = []

    def expected(self, case: Case) -> str:
        return "42"

    def repetitions_per_process(self, case: Case) -> tuple[int, int]:
        return 0, 1

    def verify(self, case: Case) -> ProcessMeasurement | None:
        if case.model in self.failing:
            return ProcessMeasurement(-1, 1, 0, 0, 0, 0, 0, 1, "crash", "exit 1: it fell over")
        return None

    def one_process(self, case: Case, index: int, warmup: int, repeat: int):
        self.order.append(case.key)
        times = self.times[case.model]
        ns = times[index % len(times)]
        return (ProcessMeasurement(index, ns + 100, ns, 0, 1000, 0, 0, 0, "ok"),
                [Repetition(index, 0, ns, 1, "42", True)])

    def group_finished(self, cases: list[Case]) -> None:
        self.finished_groups.append([c.key for c in cases])


class ListSink:
    """A sink (schedule.Sink) that keeps what the scheduler hands it."""

    def __init__(self):
        self.started, self.processes, self.done = [], [], []

    def case_started(self, run) -> None:
        self.started.append(run.case.key)

    def process_done(self, run, measurement, reps) -> None:
        self.processes.append((run.case.key, measurement.index))

    def case_done(self, run) -> None:
        self.done.append(run)
