"""pyperf's JSON format (version 1.0), so `python -m pyperf compare_to a.json b.json` reads two
parbench runs: one benchmark per case (named by its key), one pyperf run per fresh process,
its values the verified repetitions in seconds."""
from __future__ import annotations


from parbench.escaping import json_text
from parbench.export.base import Exporter, Report
from parbench.stats import grouped_samples


def render(reports: list[Report]) -> str:
    benchmarks = []
    for report in reports:
        for result in report.record.results:
            if result.stats is None:
                continue
            # The samples parbench's own statistics use (a noop case's: its whole processes).
            runs = [{"metadata": {"parbench_process": index}, "values": [float(v) * 1e-9 for v in group]}
                    for index, group in enumerate(grouped_samples(result.run)) if len(group) and min(group) > 0]
            if not runs:
                continue
            benchmarks.append({"metadata": {"name": result.case.key, "unit": "second"}, "runs": runs})
    record = reports[-1].record if reports else None
    metadata = {"parbench_run": record.id if record else None,
                "hostname": record.machine.get("hostname") if record else None,
                "cpu_model_name": record.machine.get("cpu") if record else None}
    return json_text({"version": "1.0", "metadata": {k: v for k, v in metadata.items() if v is not None},
                       "benchmarks": benchmarks}) + "\n"


EXPORTER = Exporter("pyperf", "json", "pyperf's JSON (python -m pyperf compare_to reads two of them)", render)
