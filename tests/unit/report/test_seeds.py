"""report/seeds.py: each seed article's published figure beside this machine's — like for like at
the article's scale, per item at another, the command to run where nothing was measured."""
from unit_records import case_run, failed_run, record

from parbench.report.seeds import all_seeds, command_for, compare_figure, compare_seeds
from parbench.workloads.seeds import Figure, Seed

KEYS = Figure("Flow, 1M keys", "elixir", "flow", "count", 1_000_000, 1e6, "key", 1000.0)
SEED = Seed("000", "keygen", "keygen", "a laptop, 12 cores", 12, (KEYS,), "the point")
BYTES = Figure("rayon, 10 MB", "rust", "rayon", "size", 10_000_000, 10.0, "MB", 50.0, {"cipher": "bitwise"})
SDES = Seed("001", "sdes-ecb", "sdes", "a laptop", 2, (BYTES,), "the point")
LIMIT = Figure("spawn 400k", "elixir", "spawn", "n", 400_000, 400_000, "process", 0, quantity="limit",
               limit_text="Too many processes")
CHAIN = Seed("003", "spawn-chain", "chain", "4 cores", 4, (LIMIT,), "the point")


def _keygen(count: int, model: str = "flow", times=((100, 110, 105), (102, 108, 104))):
    return case_run(model, "flow", times, params={"count": count}, runtime="elixir", workload="keygen")


def test_the_command_for_a_figure_names_its_runtime_model_and_every_param_that_is_set():
    figure = Figure("1M", "elixir", "spawn", "n", 1_000_000, 1e6, "process", 1.0, {"max_processes": None},
                    command_params={"sleep_ms": 0})
    assert command_for(SEED, figure) == ("parbench run --workload keygen --runtime elixir --model spawn "
                                         "--param n=1000000 --param sleep_ms=0")


def test_a_figure_with_no_stored_case_gets_the_command_that_measures_it_never_a_number():
    row = compare_figure(SEED, KEYS, [record([_keygen(1_000_000, model="seq")])], 2)
    assert row.measured == "not measured yet" and row.ratio == "–" and not row.measured_ok
    assert row.source == "not in the runs of this report; run:" and row.command == command_for(SEED, KEYS)


def test_a_figure_of_a_runtime_not_in_impls_says_so():
    figure = Figure("x", "cobol-that-is-not-there", "seq", "count", 10, 10, "key", 1.0)
    row = compare_figure(SEED, figure, [], 2)
    assert row.source == "no cobol-that-is-not-there runtime in impls/ yet; once there, run:"


def test_a_case_at_the_articles_scale_is_compared_total_to_total():
    row = compare_figure(SEED, KEYS, [record([_keygen(1_000_000)], run_id=7)], 2)
    assert row.measured_ok and row.published == "1 µs" and row.measured == "104 ns"
    assert row.ratio == "9.57x faster here" and row.explanation.startswith("same scale; ")
    assert row.source == "run 7 (smoke), keygen/elixir/flow[count=1000000]"


def test_a_case_at_another_scale_is_compared_per_item_and_the_largest_is_chosen():
    ms = ((100_000_000, 110_000_000, 105_000_000), (102_000_000, 108_000_000, 104_000_000))
    figure = Figure("Flow, 1M keys", "elixir", "flow", "count", 1_000_000, 1e6, "key", 2e9)
    row = compare_figure(SEED, figure, [record([_keygen(1_000, times=ms), _keygen(100_000, times=ms)])], 2)
    assert "count=100000" in row.source
    assert row.measured == "1.04 µs per key (104 ms for 100,000)"
    assert row.published == "2 s (2 µs per key)" and row.ratio == "1.91x faster here"
    assert row.explanation.startswith("other scale: compared per key; ")


def test_a_case_under_a_tenth_of_the_articles_scale_warns_that_start_up_weighs_more_per_item():
    row = compare_figure(SEED, KEYS, [record([_keygen(99_999)])], 2)
    assert row.explanation.startswith("other scale: compared per key at 99,999, where fixed start-up costs "
                                      "weigh far more per item than at the article's scale; ")


def test_the_explanation_names_fewer_cores_here_for_a_parallel_model():
    row = compare_figure(SEED, KEYS, [record([_keygen(1_000_000)])], 2)
    assert "2 logical CPUs here against 12 there: parallel speedup is bounded by 2x here" in row.explanation


def test_a_figure_of_seq_is_explained_by_one_cores_speed():
    figure = Figure("seq, 1M", "elixir", "seq", "count", 1_000_000, 1e6, "key", 1.0)
    row = compare_figure(SEED, figure, [record([_keygen(1_000_000, model="seq")])], 2)
    assert row.ratio == "104.50x slower here"
    assert row.explanation.endswith("one core of this CPU is slower at this work than the article's (a laptop, 12 cores)")


def test_a_case_with_other_match_params_does_not_stand_for_the_figure():
    table = case_run("rayon", "threads", params={"size": 10_000_000, "cipher": "table"}, runtime="rust",
                     workload="sdes-ecb")
    assert compare_figure(SDES, BYTES, [record([table])], 2).measured == "not measured yet"
    bitwise = case_run("rayon", "threads", params={"size": 10_000_000, "cipher": "bitwise"}, runtime="rust",
                       workload="sdes-ecb")
    assert compare_figure(SDES, BYTES, [record([bitwise])], 2).measured_ok


def test_a_case_that_failed_shows_its_outcome_instead_of_a_figure():
    broken = failed_run("flow", "crash", params={"count": 1_000_000})
    broken.case = broken.case.__class__("keygen", "elixir", "flow", "flow", {"count": 1_000_000}, 2)
    row = compare_figure(SEED, KEYS, [record([broken], run_id=3)], 2)
    assert row.measured == "crash: exit 1: it fell over" and not row.measured_ok
    assert row.source == "run 3, keygen/elixir/flow[count=1000000,workers=2]"


def test_a_memory_figure_compares_the_peak_rss_per_item():
    figure = Figure("memory", "elixir", "flow", "count", 1_000_000, 1e6, "key", 2048.0 * 1e6, quantity="memory")
    row = compare_figure(SEED, figure, [record([case_run("flow", "flow", params={"count": 1_000_000},
                                                         runtime="elixir", workload="keygen", rss_kb=1000)])], 2)
    assert row.measured.endswith("MiB") and row.ratio.endswith("faster here")
    assert row.explanation.startswith("same scale; both divide the whole process's peak RSS by the task count")


def _chain(n: int, outcome: str | None = None):
    if outcome is None:
        return case_run("spawn", "processes", params={"n": n}, runtime="elixir", workload="spawn-chain")
    run = failed_run("spawn", outcome, params={"n": n}, family="processes", workers=None)
    run.case = run.case.__class__("spawn-chain", "elixir", "spawn", "processes", {"n": n})
    return run


def test_a_limit_figure_with_no_case_at_or_above_its_count_is_not_measured_yet():
    row = compare_figure(CHAIN, LIMIT, [record([_chain(1000)])], 2)
    assert row.published == "Too many processes" and row.measured == "not measured yet"


def test_a_limit_figure_takes_the_smallest_case_at_or_above_its_count():
    row = compare_figure(CHAIN, LIMIT, [record([_chain(1_000_000, "limit"), _chain(500_000)])], 2)
    assert row.measured.startswith("ran at n=500,000: ") and row.measured_ok
    assert row.explanation.startswith("no limit here at that count")


def test_a_limit_hit_here_is_the_same_kind_of_limit():
    row = compare_figure(CHAIN, LIMIT, [record([_chain(400_000, "limit")])], 2)
    assert row.measured == "limit at n=400,000: exit 1: it fell over" and not row.measured_ok
    assert row.explanation == "the same kind of limit on this machine"


def test_every_workloads_seed_comes_in_the_reports_order():
    assert [seed.number for seed in all_seeds()] == ["000", "001", "002", "003", "004"]


def test_compare_seeds_gives_every_figure_a_row_and_reads_the_cores_from_the_runs():
    rec = record([_keygen(1_000_000)])
    rec.machine["logical_cpus"] = 3
    compared = compare_seeds([rec])
    assert [len(rows) for _, rows in compared] == [len(seed.figures) for seed in all_seeds()]
    flow = next(row for _, rows in compared for row in rows if row.label == "Flow (parallel), 1M keys")
    assert "3 logical CPUs here against 12 there" in flow.explanation
