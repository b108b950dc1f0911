"""Issue 59's properties: a swept value is refused in one line before anything runs or is what
its axis counts, and a stored run holding any value is read without raising; a journal's warm-up
fields are refused in one line naming the field or are figures its process could give; export
targets given twice, or two exports sharing a file, are refused before the run (exit 2), and
any others are taken."""
from __future__ import annotations

import json
import os

import pytest
import unit_records
from click.testing import CliRunner
from hypothesis import example, given, strategies as st

import test_fuzz_boundaries  # noqa: F401 — registers and loads the suite's Hypothesis profiles
from parbench.analysis.command_sweeps import AXES, AXIS_BOUNDS, analyze_commands, axis_problem
from parbench.analysis.stats import warm_up_stats
from parbench.cli import commands as cli
from parbench.cli.options import check_export_targets
from parbench.kinds.exec.commands import ExecError, ExecOptions
from parbench.kinds.exec.fit import fit_request
from parbench.store import codec

# A swept value as a user may type it: numbers of every shape, and any text.
swept = st.one_of(st.integers(-10, 2 * 10 ** 15).map(str), st.floats(allow_nan=True, allow_infinity=True).map(repr),
                  st.floats(0, 10 ** 4).map(str), st.text(max_size=8),
                  st.sampled_from(["nan", "inf", "-inf", "1e400", "1e3", "2.5", "0", "1_0", "\u0661", "0x10", " 7",
                                   "+3", "4.0", "4096", "4097", str(10 ** 9 + 1), str(10 ** 15 + 1)]))


@given(axis=st.sampled_from(AXES), values=st.lists(swept, min_size=1, max_size=5))
@example(axis="count", values=["1", "nan"])           # issue 59: stored, then every reading raised
@example(axis="count", values=["1", "2.5"])           # issue 59: a negative memory slope
def test_a_swept_value_is_refused_in_one_line_or_what_its_axis_counts(axis, values):
    options = ExecOptions(["a {v}", "b {v}"], parameter_lists=[("v", values)])
    try:
        fit_request(f"{axis}=v", options)
    except ExecError as refusal:
        assert "\n" not in str(refusal)
        return
    numbers = [float(v) for v in values]
    assert all(n == int(n) and 1 <= n <= AXIS_BOUNDS[axis] for n in numbers), values


@given(axis=st.sampled_from(AXES), values=st.lists(swept, min_size=2, max_size=4))
@example(axis="count", values=["1", "nan"])
def test_a_stored_run_with_values_its_axis_cannot_take_is_read_with_a_line_instead_of_a_fit(axis, values):
    # As a run stored before the check (or edited in the store) holds them. Values the axis takes
    # go to the fits, which the first property's refusals guard and tests/unit hold (a worker
    # fit's bootstrap takes seconds: not 10,000 times).
    if axis_problem(axis, "v", values) is None:
        return
    runs = [unit_records.case_run(f"p {v}", "command", ((1000 + 10 * i, 1010 + 10 * i),) * 2, params={"v": v},
                                  runtime="exec", workload="exec") for i, v in enumerate(values)]
    record = unit_records.record(runs, kind="exec")
    record.options["fit"] = {"axis": axis, "param": "v", "commands": ["p {v}"],
                             "template_of": {r.case.key: 0 for r in runs}}
    [(name, _, result)] = analyze_commands(record)
    assert name == "unfitted" and "\n" not in result.reason and "is not a" in result.reason


# A warm-up field as a hostile journal may write it.
field_values = st.one_of(st.integers(-(2 ** 63), 2 ** 63 - 1), st.integers(-5, 5000), st.booleans(), st.none(),
                         st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=4),
                         st.sampled_from([0, 1, 1630, 1631, 9 * 10 ** 18, -1, 100_000, 100_001]))
WARM_UP_FIELDS = ["first_ns", "warmup_ns", "warmup_reps", "gap_ns"]


@given(changes=st.dictionaries(st.sampled_from(WARM_UP_FIELDS), field_values, min_size=1))
@example(changes={"first_ns": 9 * 10 ** 18})          # issue 59: loaded, and ranked by advise --for first-run
@example(changes={"warmup_reps": -4})
@example(changes={"first_ns": 0})
def test_a_journals_warm_up_field_is_refused_naming_it_or_possible(changes):
    run = unit_records.case_run()                       # process 0: 315 ns timed in a 1,630 ns wall
    run.repetitions[0].extra.update(changes)
    data = json.loads(json.dumps(codec.case_run_dict(run), allow_nan=True))
    try:
        read = codec.case_run_from_dict(data, "line 2")
    except codec.BadShape as refusal:
        assert "\n" not in str(refusal) and any(name in str(refusal) for name in WARM_UP_FIELDS + ["add up to"])
        return
    extra, wall = read.repetitions[0].extra, read.processes[0].wall_ns
    for name in ("first_ns", "warmup_ns", "gap_ns"):
        if name in extra:
            value = extra[name]
            assert isinstance(value, int) and not isinstance(value, bool)
            assert (1 if name == "first_ns" else 0) <= value <= wall
    if "warmup_reps" in extra:
        assert isinstance(extra["warmup_reps"], int) and 0 <= extra["warmup_reps"] <= 100_000
    assert 315 + extra.get("warmup_ns", 0) <= wall
    warm_up_stats(read)                                 # what show and advise read: never raises


# Export targets: which formats a command line names, and where each goes.
FORMATS = ["json", "csv", "markdown", "html", "text"]
WHERE = ["a", "b", "a-link", "./a", "sub/../a", "/dev/null", "-"]


def _exports(folder, picks) -> dict:
    def path(where: str) -> str:
        return where if where in ("/dev/null", "-") else str(folder / where)
    return {f"export_{name}": path(where) for name, where in picks}


@pytest.fixture(scope="module")
def targets_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("targets")
    (folder / "sub").mkdir()
    (folder / "a-link").symlink_to(folder / "a")
    return folder


@given(picks=st.lists(st.tuples(st.sampled_from(FORMATS), st.sampled_from(WHERE)), min_size=1, max_size=4))
@example(picks=[("json", "a"), ("json", "b")])           # issue 59: the first was dropped without a word
@example(picks=[("json", "a"), ("csv", "a-link")])       # issue 59: each replaced the other, both "wrote"
def test_export_targets_given_twice_or_sharing_a_file_are_refused_before_the_run(targets_folder, picks):
    folder = targets_folder
    args = [a for name, where in picks for a in (f"--export-{name}", _exports(folder, [(name, where)])[f"export_{name}"])]
    names = [name for name, _ in picks]
    if len(set(names)) < len(names):
        # A flag given twice: refused by the command line itself, before any store is opened.
        done = CliRunner().invoke(cli.main, ["exec", "-N", "-r", "1", *args, "--db", "/nonexistent/s.sqlite", "true"])
        assert done.exit_code == 2 and "cannot be used multiple times" in done.output, done.output
        return
    exports = _exports(folder, picks)
    files = [os.path.realpath(t) for t in exports.values() if t not in ("-", "/dev/null")]
    streams = [t for t in exports.values() if t == "-"]
    try:
        check_export_targets(exports)
    except SystemExit as refused:
        assert refused.code == 2
        assert len(set(files)) < len(files) or len(streams) > 1, exports
        return
    assert len(set(files)) == len(files) and len(streams) <= 1, exports
