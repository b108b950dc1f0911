"""export/views.py: typed views of a run's free-form dicts, each key named once as a field."""
import pytest
from unit_records import two_models

from parbench.export.views import (AmdahlParams, Cluster, Machine, NextSizeFailure, RunOptions, ShellCpu, machine_of,
                                   options_of, runtimes_of, start_mode, view)
from parbench.records import Case


def test_a_view_takes_the_entries_named_as_its_fields_and_ignores_the_rest():
    assert view(ShellCpu, {"user_ns": 3, "sys_ns": 1, "rss": 9}) == ShellCpu(3, 1)


def test_a_missing_entry_keeps_the_fields_default_and_a_recorded_none_stays_none():
    assert view(Cluster, {"cluster": "local"}) == Cluster(cluster="local")
    assert view(Machine, {"cpu": None}).cpu is None and view(RunOptions, None) == RunOptions()


def test_a_view_without_a_default_refuses_entries_that_lack_it():
    with pytest.raises(TypeError):
        view(AmdahlParams, {"sigma": 0.1})
    assert view(NextSizeFailure, {"n": 8, "outcome": "limit", "detail": "d"}).outcome == "limit"


def test_the_machine_of_a_run_reads_what_measure_recorded_and_none_for_the_rest():
    facts = machine_of(two_models())            # unit_records: hostname and logical CPUs only
    assert (facts.hostname, facts.logical_cpus, facts.cpu, facts.git_commit) == ("unit", 2, None, None)


def test_each_runtimes_toolchain_with_empty_text_where_none_was_recorded():
    record = two_models()
    record.runtimes = {"rt": {"version": "1", "flags": "-O2", "sources": {"version": "rt -V"}}, "bare": {}}
    (name, rt), (bare_name, bare) = runtimes_of(record)
    assert (name, rt.version, rt.flags, rt.sources) == ("rt", "1", "-O2", {"version": "rt -V"})
    assert (bare_name, bare.version, bare.flags, bare.sources) == ("bare", "", "", None)


def test_the_options_that_change_an_export():
    record = two_models()
    record.options.update(sweep="workers", time_unit="millisecond")
    assert options_of(record) == RunOptions(sweep="workers", time_unit="millisecond", sort=None)


def test_a_cases_start_mode_is_empty_where_the_harness_set_none():
    assert start_mode(Case("toy", "rt", "pool", "threads", {"n": 1, "start": "warm"}, 2)) == "warm"
    assert start_mode(Case("toy", "rt", "seq", "seq", {"n": 1})) == ""
