"""report/advise_panel.py: the panel carries each candidate's points and law as data no stored
name can break out of, and nothing where no workload has a value to set."""
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
    assert [p[:3] for p in models[HOSTILE]["points"]] == [[2, 1000.0, 1_000_002.0], [2, 4000.0, 3_000_002.0]]
    assert entry["values"] == [1000.0, 4000.0] and entry["cpus"] == 2


def test_no_panel_without_a_workload_whose_value_can_be_set():
    assert section([]) == ""
