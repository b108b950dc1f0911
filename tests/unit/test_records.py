"""records.py: a case's key, table, title and label; a run's first failure; a comparison's
sentence; old runs' "kernel" renamed."""
import datetime as dt

from parbench.records import (Case, CaseResult, CaseRun, Comparison, ProcessMeasurement, RunRecord, now,
                              table_title)

POOL = Case("sdes-ecb", "rust", "pool", "threads", {"size": 1024, "cipher": "bitwise"}, 4)


def test_a_case_key_names_workload_runtime_model_sorted_params_and_workers():
    assert POOL.key == "sdes-ecb/rust/pool[cipher=bitwise,size=1024,workers=4]"


def test_a_case_without_workers_says_none_in_its_key():
    assert Case("noop", "go", "seq", "seq", {}).key == "noop/go/seq[]"


def test_cases_with_the_same_workload_and_params_share_a_table_whatever_their_runtime_and_model():
    seq = Case("sdes-ecb", "go", "seq", "seq", {"cipher": "bitwise", "size": 1024})
    assert seq.table == POOL.table == ("sdes-ecb", (("cipher", "bitwise"), ("size", 1024)))


def test_cold_and_warm_starts_of_one_parameter_set_stand_in_one_table():
    cold = Case("spawn-chain", "go", "pool", "threads", {"n": 10, "start": "cold"})
    warm = Case("spawn-chain", "go", "pool", "threads", {"n": 10, "start": "warm"})
    assert cold.table == warm.table and cold.key != warm.key


def test_every_command_of_an_exec_shares_one_table():
    assert Case("exec", "exec", "sleep 1", "exec", {"n": 1}).table == Case("exec", "exec", "true", "exec", {}).table


def test_a_table_title_reads_as_the_workload_then_its_params():
    assert POOL.table_title == "sdes-ecb cipher=bitwise size=1024"
    assert table_title(("noop", ())) == "noop"


def test_a_table_key_stored_as_tuple_text_by_older_runs_is_read_back_as_a_title():
    assert table_title("('sdes-ecb', (('size', 64),))") == "sdes-ecb size=64"


def test_a_table_key_already_readable_or_unparseable_is_shown_as_it_is():
    assert table_title("sdes-ecb size=64") == "sdes-ecb size=64"
    assert table_title("(not python") == "(not python"


def test_a_label_is_runtime_and_model_with_workers_and_start_mode():
    assert POOL.label == "rust pool ×4"
    assert Case("w", "go", "pool", "threads", {"start": "warm"}, 2).label == "go pool ×2 warm"


def test_an_exec_command_is_labelled_by_itself_alone():
    assert Case("exec", "exec", "sleep 0.1", "exec", {}).label == "sleep 0.1"


def test_a_case_run_keeps_its_first_failure_not_the_later_ones():
    run = CaseRun(POOL, "42")
    run.fail("timeout", "after 10 s")
    run.fail("crash", "exit 1")
    assert (run.status, run.reason) == ("timeout", "after 10 s")


def test_a_process_peak_is_its_tree_where_measured_else_its_largest_process():
    measured = ProcessMeasurement(0, 1, 0, 0, 100, 0, 0, 0, "ok", tree_peak_rss_kb=250)
    older = ProcessMeasurement(0, 1, 0, 0, 100, 0, 0, 0, "ok")
    assert (measured.peak_kb, older.peak_kb) == (250, 100)


def test_a_comparison_that_is_not_significant_says_so_whatever_its_ratio():
    assert Comparison("x", 3.0, (0.5, 5.0), 1e6, False).sentence() == "no significant difference"


def test_a_slower_case_says_how_many_times_slower_and_by_how_much():
    assert Comparison("x", 2.0, (1.8, 2.2), 1_500_000, True).sentence() == "2.00x slower +1.5 ms"


def test_a_faster_case_says_how_many_times_faster_from_the_inverse_ratio():
    assert Comparison("x", 0.25, (0.2, 0.3), -3000, True).sentence() == "4.00x faster -3 µs"


def test_a_case_result_is_about_the_case_of_its_run():
    assert CaseResult(CaseRun(POOL, "42")).case is POOL


def test_an_older_run_calling_the_os_release_kernel_is_read_as_os_kernel():
    record = RunRecord(1, "t", "smoke", {}, {"kernel": "6.1", "hostname": "h"}, {})
    assert record.machine == {"os_kernel": "6.1", "hostname": "h"}


def test_a_run_that_already_has_os_kernel_keeps_its_machine_as_it_is():
    machine = {"os_kernel": "6.1", "kernel": "something else"}
    assert RunRecord(1, "t", "smoke", {}, dict(machine), {}).machine == machine


def test_now_is_a_local_time_with_its_offset_to_the_second():
    stamp = dt.datetime.fromisoformat(now())
    assert stamp.utcoffset() is not None and stamp.microsecond == 0
