"""report/rows.py: what a table row says of the machine around a case."""
from unit_records import CORES, case_run

from parbench.analysis.case_results import analyze
from parbench.report.rows import machine_load_note, outlier_note


def _with_load(others_cores: float, steal_ns: int):
    run = case_run()
    for rep in run.repetitions:
        if rep.rep == 0:
            rep.extra.update(others_cores=others_cores, steal_ns=steal_ns)
    return analyze([run], CORES)[0]


def test_a_quiet_machine_adds_nothing_to_the_row():
    assert machine_load_note(_with_load(0.05, 0)) == ""
    assert machine_load_note(analyze([case_run()], CORES)[0]) == ""      # stored before the launcher read it


def test_other_work_beside_a_case_is_named_in_its_row():
    result = _with_load(0.8, 0)
    assert "kept up to 0.80 cores busy beside it" in outlier_note(result)


def test_stolen_time_is_named_per_process_wall():
    result = _with_load(0.0, 10_000)                    # the process walls are ~600 ns: most of it stolen
    assert "the hypervisor stole up to" in machine_load_note(result)


def test_strong_keys_are_form_checked_never_a_tick_and_seeded_ones_are_checked():
    from parbench.report.rows import measured_row
    strong = analyze([case_run(workload="keygen", params={"count": 10, "bytes": 20, "source": "strong"})], CORES)[0]
    seeded = analyze([case_run(workload="keygen", params={"count": 10, "bytes": 20, "source": "seeded"})], CORES)[0]
    assert measured_row(strong)[-1] == "form checked 6/6" and "✓" not in measured_row(strong)[-1]
    assert measured_row(seeded)[-1] == "✓ 6/6"


def test_a_chain_of_green_units_reads_units_unverified_and_one_of_os_threads_a_tick():
    """The launcher counts a chain's OS threads; green units, coroutines and actors it cannot see."""
    from parbench.report.rows import measured_row

    def chain(model, family):
        return analyze([case_run(model, family, workload="spawn-chain", params={"n": 10})], CORES)[0]
    assert measured_row(chain("goroutines", "green"))[-1] == "units unverified 6/6"
    assert measured_row(chain("asyncio", "async"))[-1] == "units unverified 6/6"
    assert measured_row(chain("spawn", "actors"))[-1] == "units unverified 6/6"
    assert measured_row(chain("threads", "threads"))[-1] == "✓ 6/6"
    assert measured_row(chain("seq", "seq"))[-1] == "✓ 6/6"


def test_repetitions_that_carry_request_latencies_show_their_medians_beside_the_rate():
    from parbench.report.rows import latency_text
    run = case_run()
    for rep in run.repetitions:
        rep.extra.update(p50_ns=400_000, p99_ns=1_600_000 + rep.rep)
    assert latency_text(analyze([run], CORES)[0]) == " · latency p50 400 µs, p99 1.6 ms"
    assert latency_text(analyze([case_run()], CORES)[0]) == ""
