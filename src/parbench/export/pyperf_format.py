"""pyperf's JSON format (version 1.0), so `python -m pyperf compare_to a.json b.json` reads two
parbench runs: one benchmark per case (named by its key), one pyperf run per fresh process,
its values the verified repetitions in seconds."""
from __future__ import annotations

from parbench.analysis.stats import grouped_samples
from parbench.escaping import json_text
from parbench.export.base import Exporter, NotExportable, Report
from parbench.export.views import machine_of


def render(reports: list[Report]) -> str:
    benchmarks, left_out = [], []
    for report in reports:
        for result in report.record.results:
            if result.stats is None:
                continue
            # pyperf holds only times above 0: a process with a 0 (exec's time once the shell's
            # start-up is subtracted) cannot be a pyperf run, and is named in `parbench_left_out`.
            groups = grouped_samples(result.run)
            runs = [{"metadata": {"parbench_process": index}, "values": [float(v) * 1e-9 for v in group]}
                    for index, group in enumerate(groups) if len(group) and min(group) > 0]
            if len(runs) < len(groups):
                left_out.append(f"{result.case.key} ({len(groups) - len(runs)} of {len(groups)} processes)")
            if runs:
                benchmarks.append({"metadata": {"name": result.case.key, "unit": "second"}, "runs": runs})
    if not benchmarks:
        raise NotExportable("pyperf's format holds only times above 0 and a suite of at least one benchmark; "
                            + ("every time of this run is 0 once the shell's start-up is subtracted (-N measures "
                               "without a shell)" if left_out else "this run has no verified timing"))
    record = reports[-1].record
    facts = machine_of(record)
    metadata = {"parbench_run": record.id, "hostname": facts.hostname, "cpu_model_name": facts.cpu,
                "parbench_left_out": "; ".join(left_out) + ": a time of 0 ns" if left_out else None}
    return json_text({"version": "1.0", "metadata": {k: v for k, v in metadata.items() if v is not None},
                       "benchmarks": benchmarks}) + "\n"


EXPORTER = Exporter("pyperf", "json", "pyperf's JSON (python -m pyperf compare_to reads two of them)", render)
