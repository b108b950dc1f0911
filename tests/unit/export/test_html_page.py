"""export/html_page.py: one self-contained page (no request leaves it)."""
import re
from dataclasses import replace

import unit_records
from unit_records import two_models

from parbench.analysis.crossover import CrossoverResult
from parbench.analysis.per_task import per_task_costs
from parbench.analysis.scaling import Fit, ScalingResult
from parbench.export import html_page
from parbench.export.base import Report
from parbench.report.rows import groups


def test_the_page_is_whole_and_loads_nothing_from_elsewhere():
    page = html_page.render([Report(two_models())])
    assert page.lstrip().lower().startswith("<!doctype html") and page.rstrip().endswith("</html>")
    assert "rt pool ×2" in page and "it fell over" in page
    assert not re.search(r"""(src|href)=["']?https?://""", page)


def test_a_name_from_outside_is_escaped():
    record = two_models()
    record.results[2].run.reason = "<script>alert(1)</script>"
    assert "<script>alert(1)" not in html_page.render([Report(record)])


def _distributed(extra: dict):
    """A measured case whose verified repetitions carry a cluster's extras."""
    record = unit_records.record([unit_records.case_run("dask", "distributed")])
    for rep in record.results[0].run.repetitions:
        rep.extra = {"cluster_start_ns": 1_000_000_000, **extra}
    return record.results[0]


def test_a_local_cluster_is_named_with_its_workers_and_hops_apart_from_the_timing():
    result = _distributed({"cluster": "local", "cluster_workers": 2, "cross_node_hops": 1234})
    assert html_page.cluster_text(result) == "1 s · local, 2 workers · 1,234 cross-node hops"
    assert html_page.cluster_note(result).startswith("its cluster starts in 1 s")


def test_a_remote_cluster_is_connected_to_and_its_memory_not_measured():
    result = _distributed({"cluster": "remote", "nodes": 3})
    assert html_page.cluster_text(result) == "connect 1 s · remote, 3 nodes · its memory not measured"
    assert html_page.cluster_note(result).startswith("connects to a remote cluster in 1 s")


def test_a_case_without_a_cluster_has_no_cluster_text():
    result = unit_records.two_models().results[0]
    assert html_page.cluster_text(result) == "–" and html_page.cluster_note(result) == ""


def test_the_scaling_plot_draws_both_fitted_laws_with_their_parameters():
    amdahl_fit = Fit("amdahl", {"f": 0.125}, {"f": None}, 0.0, 1)
    usl_fit = Fit("usl", {"sigma": 0.05, "kappa": 0.001}, {"sigma": None, "kappa": None}, 0.0, 1)
    result = ScalingResult([1, 2, 4], [1, 2, 4], [1.0, 1.8, 3.1], [1.0, 0.9, 0.78], amdahl_fit, usl_fit, None, None,
                           {}, 4, "", "toy", "rt", "pool", cores=4)
    plot = html_page.scaling_plot(unit_records.two_models(), "toy rt pool", result)
    assert "Amdahl fit, f = 0.125" in plot and "USL fit, σ = 0.05, κ = 0.001" in plot


def test_the_per_task_plots_mark_the_first_size_that_did_not_run():
    result = per_task_costs([10, 20, 40], [1e6, 2e6, 4e6], [1e6, 2e6, 4e6],
                            {"n": 80, "outcome": "limit", "detail": "over 1 GiB"})
    plots = html_page.per_task_plots("toy rt pool", replace(result, param="n"))
    assert len(plots) == 2 and all("limit: over 1 GiB" in plot for plot in plots)


def test_the_crossover_plot_draws_the_models_other_start_mode():
    runs = [unit_records.case_run("pool", "threads", ((50, 55, 52),), params={"n": n, "start": mode}, workers=2)
            for n in (10, 20) for mode in ("cold", "warm")]
    record = unit_records.record([unit_records.case_run(params={"n": 10}), *runs])
    crossover = CrossoverResult([10, 20], [1.0, 1.0], [(1, 1), (1, 1)], None, None, "", "toy", "rt", "pool", "n",
                                start="cold")
    assert set(html_page._other_modes(record, crossover)) == {"warm"}


def test_a_sweep_names_its_axis_in_the_summary_heading():
    record = two_models()
    record.options["sweep"] = "workers"
    assert "Run 1 · suite (workers) · scale smoke" in html_page.summary_table(record, [], [])
    assert "Run 1 · suite · scale smoke" in html_page.summary_table(two_models(), [], [])


def test_the_machine_section_lists_each_runtimes_toolchain_and_sources():
    record = two_models()
    record.runtimes = {"rt": {"version": "1.2", "flags": "-O2", "sources": {"version": "rt --version"}},
                       "bare": {}}
    section = html_page.metadata_section([record])
    assert "<td>rt</td><td>1.2</td><td>-O2</td><td>version: rt --version</td>" in section
    assert "<td>bare</td><td></td><td></td><td></td>" in section


def test_the_page_opens_with_the_machine_it_ran_on():
    record = two_models()
    record.machine.update(cpu="Toy CPU", os="Linux", parbench="0.9", git_commit="abc123")
    assert "<p class=meta>Toy CPU · 2 logical CPUs · Linux · parbench 0.9 @ abc123</p>" in html_page.render(
        [Report(record)])


def test_a_remote_clusters_memory_is_marked_as_the_client_only():
    result = _distributed({"cluster": "remote", "nodes": 3})
    record = unit_records.record([result.run])
    table = html_page.results_table(record, groups(record)[0])
    assert "(client only)" in table and "connect 1 s" in table
