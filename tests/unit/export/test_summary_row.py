"""export/summary_row.py: a measured case's figures in hyperfine's units, computed once for every format."""
import pytest
import unit_records
from unit_records import two_models

from parbench.export.summary_row import summary


def test_times_are_in_seconds_and_the_command_is_the_cases_label():
    row = summary(two_models().results[0])
    assert row.command == "rt seq"
    assert row.times == pytest.approx((100e-9, 110e-9, 105e-9, 102e-9, 108e-9, 104e-9))
    assert (row.min, row.max, row.median) == pytest.approx((100e-9, 110e-9, 104.5e-9))
    assert row.mean == pytest.approx(sum(row.times) / 6) and row.stddev > 0
    assert row.median_ci[0] <= row.median <= row.median_ci[1]


def test_a_single_run_has_no_standard_deviation():
    row = summary(unit_records.record([unit_records.case_run(times=((100,),))]).results[0])
    assert row.stddev is None and row.mean == pytest.approx(100e-9)


def test_a_processs_cpu_is_shared_over_the_repetitions_it_ran():
    # unit_records: each process's user CPU is half its wall time, its system CPU a tenth
    row = summary(two_models().results[0])
    walls = [2 * 315 + 1000, 2 * 314 + 1000]
    assert row.user == pytest.approx(sum(w // 2 for w in walls) / 6 * 1e-9)
    assert row.system == pytest.approx(sum(w // 10 for w in walls) / 6 * 1e-9)


def test_execs_runs_carry_their_own_cpu_with_the_shells_start_up_subtracted():
    run = unit_records.case_run("sleep 0.1", "exec", times=((100, 120),), workload="exec", runtime="exec")
    for rep, (user, system) in zip(run.repetitions, ((30, 4), (50, 6))):
        rep.extra = {"user_ns": user, "sys_ns": system}
    row = summary(unit_records.record([run], kind="exec").results[0])
    assert row.command == "sleep 0.1"
    assert (row.user, row.system) == pytest.approx((40e-9, 5e-9))


def test_memory_is_the_process_trees_peak_per_counted_run_in_bytes():
    row = summary(unit_records.record([unit_records.case_run(rss_kb=2000)]).results[0])
    assert row.memory_usage_byte == (3000 * 1024,) * 6      # the tree: 1000 kB above its largest process
    assert row.tree_peak_rss_bytes == 3000 * 1024 and row.largest_process_rss_bytes == 2000 * 1024


def test_verification_counts_the_repetitions_whose_checksum_matched_among_all():
    run = unit_records.case_run()
    run.repetitions[0].verified = False
    row = summary(unit_records.record([run]).results[0])
    assert (row.verified, row.repetitions, len(row.times)) == (5, 6, 5)
