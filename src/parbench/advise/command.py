"""`parbench advise` from its request to its exit code: ask, (measure,) advise, print, (check,)
export. The CLI only turns flags into an `AdviseRequest`."""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from parbench import targets, workloads as workloads_module
from parbench.errors import EXIT_NOT_WRITTEN, EXIT_USAGE
from parbench.advise import check as checking, export, measure, render
from parbench.advise.advice import Advice, advise
from parbench.advise.commands import advice_lines, document as commands_document, unfitted_reasons
from parbench.escaping import json_text
from parbench.advise.question import STEADY_STATE, Question, QuestionError, ask
from parbench.project import DEFAULT_DB
from parbench.store import open_store
from parbench.store.analyzed import load_analyzed
from parbench.store.database import StoreError, redact, sqlite_path


class AdviseError(ValueError):
    """What stops an advice, in one line; `code` its class's exit code (errors.py): a refused
    question 2, an answer that could not be written 1, as every command has them."""

    def __init__(self, message: str, code: int = EXIT_USAGE):
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class AdviseRequest:
    workload: str | None
    params: tuple[str, ...]
    cores: int | None                       # None: this machine's logical CPUs
    db: str
    runtimes: tuple[str, ...] = ()
    families: tuple[str, ...] = ()
    kernel: str | None = None
    by_memory: bool = False
    answers: str = STEADY_STATE             # --for: the figure ranked
    measure: bool = False
    check: bool = False
    export_json: str | None = None
    run_options: tuple[str, ...] = ()       # passed to the runs of --measure and --check


def _records(db: str) -> list:
    path = sqlite_path(db)
    if path is not None and not path.exists():
        raise AdviseError(f"no results store at {path}: `make bench` or `parbench run` makes one")
    try:
        store = open_store(db, read_only=True)
        return [store.load_run(run_id) for run_id in store.run_ids()]
    except StoreError as error:
        raise AdviseError(str(error)) from None


def _advice(question: Question, request: AdviseRequest) -> Advice:
    workload = workloads_module.load_all()[question.workload]
    return advise(_records(request.db), question, workload, os.cpu_count() or 1)


def _write(text: str, target: str) -> None:
    if target == "-":
        sys.stdout.write(text)
        return
    try:
        targets.write_text(Path(target), text)
    except OSError as error:
        raise AdviseError(f"cannot write {target}: {error.strerror or error}", code=EXIT_NOT_WRITTEN) from None


def answer(request: AdviseRequest, say: Callable[[str], None]) -> int:
    """Prints the advice (and its check) with `say`; the exit code: 0, or 1 where nothing could be
    predicted. AdviseError for a bad question or store."""
    workloads = workloads_module.load_all()
    try:
        question = ask(workloads, request.workload, request.params, request.cores or os.cpu_count() or 1,
                       request.runtimes, request.families, request.kernel, request.by_memory,
                       request.answers)
    except QuestionError as error:
        raise AdviseError(str(error)) from None
    advice = _advice(question, request)
    if request.measure and advice.missing:
        for missing in advice.missing:
            say(f"measuring: {missing.command(_db_shown(request.db))}")
            measure.parbench(missing.arguments, request.db, request.run_options)
        advice = _advice(question, request)
    quiet = request.export_json == "-"
    if not quiet:
        say("\n".join(render.advice_lines(advice, workloads[question.workload].items, _db_shown(request.db))))
    rows = checking.check(advice, request.db, request.run_options) if request.check else None
    if rows is not None and not quiet:
        say("\n".join(render.check_lines(rows)))
    if request.export_json:
        _write(export.render(advice, rows, _db_shown(request.db)), request.export_json)
    return 0 if any(r.entries for r in advice.rankings) else 1


def _db_shown(db: str) -> str | None:
    """--db in the printed commands only where it is not the default store."""
    return None if db == str(DEFAULT_DB) else redact(db)


def _refuse_a_run_given_twice(runs: tuple[str, ...], records: list) -> None:
    """Each run once (by id, `latest` or a baseline): a run beside itself is no second opinion,
    and its commands would be ranked against themselves."""
    named: dict[int, list[str]] = {}
    for run, record in zip(runs, records):
        named.setdefault(record.id, []).append(run)
    twice = {run_id: names for run_id, names in named.items() if len(names) > 1}
    if twice:
        raise AdviseError("; ".join(f"run {run_id} is given {len(names)} times ({', '.join(names)})"
                                    for run_id, names in twice.items()) + ": name each run once")


def answer_commands(db: str, runs: tuple[str, ...], cores: int | None, say: Callable[[str], None],
                    export_json: str | None = None) -> int:
    """`advise --exec RUN`: the stored sweeps of a user's own commands (exec --fit) asked which
    command at these cores, and from what size; exit 1 where none of the runs has a fit."""
    path = sqlite_path(db)
    if path is not None and not path.exists():
        raise AdviseError(f"no results store at {path}: `parbench exec --fit …` makes one")
    try:
        store = open_store(db, read_only=True)
        records = [load_analyzed(store, run) for run in runs]
    except StoreError as error:
        raise AdviseError(str(error)) from None
    _refuse_a_run_given_twice(runs, records)
    cores = cores or os.cpu_count() or 1
    lines = advice_lines(records, cores)
    if not lines and (unfitted := unfitted_reasons(records)):
        raise AdviseError("; ".join(unfitted))
    if not lines:
        raise AdviseError(f"run(s) {', '.join(str(r.id) for r in records)} hold no sweep of your own commands: "
                          "`parbench exec --fit workers|size …` makes one")
    if export_json != "-":
        say("\n".join(lines))
    if export_json:
        _write(json_text(commands_document(records, cores), indent=1) + "\n", export_json)
    return 0
