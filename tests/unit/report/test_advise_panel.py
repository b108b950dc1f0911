"""report/advise_panel.py: the panel carries each candidate's points and law, of each figure, as
data no stored name can break out of, and nothing where no workload has a value to set."""
import json
import re

from advise_records import run_of
from parbench.report.advise_panel import section
from parbench.workloads import load_all

HOSTILE = "</script><script>alert(1)</script><!--"


def test_the_panel_carries_the_points_as_data_that_no_name_can_close():
    workload = next(w for w in load_all().values() if w.swept_param)
    record = run_of(workload.name, workload.swept_param,
                    [("seq", 1000, None, 2_000_000), (HOSTILE, 1000, 2, 1_000_000), (HOSTILE, 4000, 2, 3_000_000)])
    html = section([record])
    assert html.count("</script>") == 2 and "<!--" not in html
    data = json.loads(re.search(r'id="advise-data">(.*?)</script>', html).group(1))
    [entry] = [w for w in data["workloads"] if w["workload"] == workload.name]
    models = {s["model"]: s for s in entry["contexts"][0]["series"]}
    assert set(models) == {"seq", HOSTILE}
    assert [p[:3] for p in models[HOSTILE]["figures"]["steady-state"]["points"]] == [
        [2, 1000.0, 1_000_002.0], [2, 4000.0, 3_000_002.0]]
    assert entry["values"] == [1000.0, 4000.0] and entry["cpus"] == 2


def _series_of(records, workload) -> dict:
    data = json.loads(re.search(r'id="advise-data">(.*?)</script>', section(records)).group(1))
    [entry] = [w for w in data["workloads"] if w["workload"] == workload.name]
    return {s["model"]: s for s in entry["contexts"][0]["series"]}


def test_the_panel_carries_the_first_run_points_beside_the_steady_ones():
    # advise --for first-run's evidence: each process's first repetition (here 10 times the steady one)
    workload = next(w for w in load_all().values() if w.swept_param)
    record = run_of(workload.name, workload.swept_param,
                    [("seq", 1000, None, 2_000_000), ("seq", 4000, None, 8_000_000)], first_times=10)
    figures = _series_of([record], workload)["seq"]["figures"]
    assert [p[:3] for p in figures["steady-state"]["points"]] == [[None, 1000.0, 2_000_002.0], [None, 4000.0, 8_000_002.0]]
    assert [p[:3] for p in figures["first-run"]["points"]] == [[None, 1000.0, 20_000_000.0], [None, 4000.0, 80_000_000.0]]
    assert figures["first-run"]["without_figure"] == 0


def test_a_candidate_without_first_run_figures_carries_none_and_says_how_many_cases_lack_them():
    workload = next(w for w in load_all().values() if w.swept_param)
    param = workload.swept_param
    with_first = run_of(workload.name, param, [("seq", 1000, None, 2_000_000)], first_times=1.5)
    before_protocol_4 = run_of(workload.name, param, [("threads", 1000, 2, 1_000_000), ("threads", 4000, 2, 3_000_000)],
                               run_id=2)
    series = _series_of([with_first, before_protocol_4], workload)
    assert series["threads"]["figures"]["first-run"] == {"points": [], "law": None, "without_figure": 2}
    assert len(series["threads"]["figures"]["steady-state"]["points"]) == 2
    assert len(series["seq"]["figures"]["first-run"]["points"]) == 1


def test_no_panel_without_a_workload_whose_value_can_be_set():
    assert section([]) == ""
