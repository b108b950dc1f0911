"""`parbench run`: the plan of the request (or what an interrupted run still lacks), as one round."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING, Iterator

from parbench.errors import PipelineError
from parbench.escaping import styled
from parbench.measure import liveness
from parbench.measure import runtimes as runtimes_module
from parbench.measure.runner import WorkloadRunner
from parbench.plan.cases import Request, choose_runtimes, make_plan
from parbench.plan.from_request import describe_runtimes, new_record, settings_for, startup_cases
from parbench.records import Case, RunRecord, now
from parbench.report import console as console_report
from parbench.store import Store
from parbench.store.database import StoreError
from parbench.workloads import SpecError, load_all, with_noop

if TYPE_CHECKING:                     # the pipeline drives the kinds; they only read what it hands them
    from parbench.pipeline import Invocation


class SuiteKind:
    """`parbench run`: a new request's plan, or `--resume RUN`'s unfinished cases."""
    name = "suite"
    of_workloads, resumable, live_tables = True, True, True

    def __init__(self, request: Request | None, resume: str | None = None,
                 asked: dict[str, tuple[str, object]] | None = None):
        self.request, self.resume = request, resume
        self.asked = asked or {}          # settings given beside --resume: {Request field: (flag, value)}

    def configure(self, invocation: Invocation) -> None:
        record = None
        done: set[str] = set()
        if self.resume:
            record, self.request = claim_for_resume(invocation.store, self.resume, self.asked)
            done = {r.case.key for r in record.results if r.run.status not in ("running", "interrupted")}
            invocation.resumed = True
        try:
            cases, described, runner = self._plan(invocation, done)
        except PipelineError:
            if record is not None:
                invocation.store.finish_run(record.id, "interrupted", now())
            raise
        invocation.cases, invocation.runner = cases, runner
        invocation.record = record or new_record(self.request, described, "suite", runner.settings)
        if self.resume:
            invocation.output.console.print(f"Resuming run {record.id}: {len(cases)} cases left", highlight=False)

    def _plan(self, invocation: Invocation, done: set[str]):
        workloads, runtimes = load_all(), runtimes_module.load_all()
        try:
            described, skipped = describe_runtimes(runtimes, choose_runtimes(self.request, runtimes))
            plan = make_plan(self.request, workloads, runtimes, described)
        except SpecError as error:
            raise PipelineError(str(error)) from None
        for line in skipped + plan.skipped:
            invocation.output.console.print(styled(("skip", "yellow"), f" {line}"), highlight=False)
        if not plan.cases:
            raise PipelineError(plan.nothing_to_run(skipped))
        cases = [c for c in startup_cases(plan, described) + plan.cases if c.key not in done]
        return cases, described, WorkloadRunner(runtimes, with_noop(workloads), settings_for(self.request))

    def rounds(self, invocation: Invocation) -> Iterator[list[Case]]:
        yield invocation.cases

    def analyses(self, record: RunRecord) -> list:
        return []

    def print_result(self, invocation: Invocation) -> None:
        # The tables were printed as each finished (report/live.py): only the summary is left.
        console_report.print_run(invocation.record, invocation.output.console, invocation.analyses, tables=False)


def claim_for_resume(store: Store, reference: str, asked: dict[str, tuple[str, object]] | None = None,
                     ) -> tuple[RunRecord, Request]:
    """The run to finish, taken over from its dead owner; refused while its owner lives, and when
    the flags given beside --resume (`asked`) ask for something else than the run stored."""
    try:
        record = store.load_run(store.resolve(reference))
    except StoreError as error:
        raise PipelineError(str(error)) from None
    if record.kind != "suite":
        raise PipelineError(f"run {record.id} is a{'n' if record.kind == 'exec' else ''} {record.kind} run: "
                            f"`parbench run --resume` finishes suite runs only; start the {record.kind} again")
    if contradicted := _contradicted(record, asked or {}):
        raise PipelineError(f"--resume {reference} finishes run {record.id} as it was asked; "
                            f"{', '.join(contradicted)} ask for something else: drop them (nothing was run)")
    owner = store.run_owner(record.id)
    if record.status == "complete":
        raise PipelineError(f"run {record.id} is complete: nothing to resume")
    if record.status == "running" and liveness.is_alive(owner, store.heartbeat_age(record.id)):
        raise PipelineError(f"run {record.id} is being measured right now by pid {liveness.owner_pid(owner)}; "
                            "wait for it, or stop it (Ctrl-C) and resume then")
    if not store.claim_run(record.id, liveness.owner_id(), owner):
        raise PipelineError(f"run {record.id} was just taken over by another parbench; nothing was run")
    request = Request(**{k: tuple(v) if isinstance(v, list) else v for k, v in record.options.items()
                         if k in Request.__dataclass_fields__})
    return record, request


def _contradicted(record: RunRecord, asked: dict[str, tuple[str, object]]) -> list[str]:
    """Each flag given beside --resume whose value is not the one the run stored, with both."""
    plain = lambda value: json.loads(json.dumps(value))          # tuples and lists alike, as stored
    return [f"{flag} {_shown(value)} (run {record.id}: {_shown(record.options.get(field))})"
            for field, (flag, value) in asked.items() if plain(value) != plain(record.options.get(field))]


def _shown(value: object) -> str:
    if isinstance(value, (list, tuple)):
        return ",".join(map(str, value)) or "all"
    if isinstance(value, dict):
        return " ".join(f"{k}={v}" for k, v in value.items()) or "none"
    return "default" if value is None else str(value)
