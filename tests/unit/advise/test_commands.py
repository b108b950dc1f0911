"""advise/commands.py: a user's stored command sweeps asked which command at N cores, from what size."""
import pytest
import unit_records

from parbench.advise.commands import advice_lines, predictions


def _run(model: str, params: dict, ns: int):
    return unit_records.case_run(model, "command", tuple((ns + i,) for i in range(10)), params=params,
                                 runtime="exec", workload="exec")


def _worker_sweep(commands: dict[str, tuple[int, int]]):
    runs, template_of = [], {}
    for index, (template, (one, two)) in enumerate(commands.items()):
        for workers, ns in (("1", one), ("2", two)):
            run = _run(template.replace("{w}", workers), {"w": workers}, ns)
            runs.append(run)
            template_of[run.case.key] = index
    record = unit_records.record(runs, kind="exec")
    record.options["fit"] = {"axis": "workers", "param": "w", "commands": list(commands), "template_of": template_of}
    return record


def test_the_time_at_more_cores_follows_amdahl_within_the_interval_of_f_and_the_one_worker_time():
    [p] = predictions(_worker_sweep({"a {w}": (900_000, 600_000)}), cores=12)
    assert p.serial_fraction == pytest.approx(1 / 3, abs=0.01)
    assert p.low_ns < p.time_ns < p.high_ns
    assert abs(p.time_ns - 900_000 * (1 / 3 + (2 / 3) / 12)) < 5_000


def test_the_command_with_the_smaller_serial_fraction_comes_first_and_a_clear_gap_is_said():
    lines = advice_lines([_worker_sweep({"a {w}": (900_000, 600_000), "b {w}": (900_000, 480_000)})], cores=12)
    assert lines[0] == "Which command at 12 cores (predicted by Amdahl's law beyond the 2 workers measured):"
    assert lines[1].startswith("  b {w}: ") and lines[2].startswith("  a {w}: ")
    assert lines[3] == "  → b {w} is predicted fastest: its interval lies below every other's"


def test_runs_without_a_fit_give_no_advice():
    assert advice_lines([unit_records.record([_run("x", {}, 100)], kind="exec")], cores=4) == []



def test_the_json_answer_ranks_the_commands_with_their_intervals_as_the_console_does():
    from parbench.advise.commands import document
    doc = document([_worker_sweep({"a {w}": (900_000, 600_000), "b {w}": (900_000, 480_000)})], cores=12)
    assert [c["command"] for c in doc["which_command"]] == ["b {w}", "a {w}"]
    first = doc["which_command"][0]
    assert first["time_ns"]["low"] < first["time_ns"]["median"] < first["time_ns"]["high"]
    assert first["predicted_beyond_measured"] and doc["clear_winner"] and doc["crossings"] == []


def test_the_interval_widens_with_the_distance_extrapolated_and_says_so():
    record = _worker_sweep({"a {w}": (900_000, 600_000)})
    [near] = predictions(record, cores=2)
    [four], [sixteen] = predictions(record, cores=4), predictions(record, cores=16)
    assert near.widened_by == 0 and four.widened_by == pytest.approx(0.10) and sixteen.widened_by == pytest.approx(0.30)
    share = lambda p: (p.high_ns - p.low_ns) / p.time_ns
    assert share(near) < share(four) < share(sixteen)
    lines = advice_lines([record], cores=16)
    assert "widened ±30% for extrapolating 3.0 doublings beyond 2 workers)" in lines[1]


def test_a_sweep_whose_sitting_showed_no_parallelism_is_said_beside_its_prediction():
    record = _worker_sweep({"a {w}": (900_000, 890_000)})
    for result in record.results:
        for rep in result.run.repetitions:
            rep.extra.update(user_ns=rep.ns, sys_ns=0)
    lines = advice_lines([record], cores=16)
    assert lines[2].startswith("    its sweep's sitting showed no parallelism (with more workers the command ran on at "
                               "most 1.00 cores")
