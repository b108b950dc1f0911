"""What this machine offers, as `parbench doctor` and `parbench list` print it: each runtime found
or missing (with its install line), the workloads with their scales, and every model's family."""
from __future__ import annotations

from rich.console import Console
from rich.table import Table

from parbench.escaping import console as console_text
from parbench.escaping import styled
from parbench.measure.runtimes import TOOLS, Description, Model, Runtime, distributed_engines, on_path
from parbench.workloads import Workload


def _table(title: str, columns: tuple[str, ...]) -> Table:
    table = Table(title=title, title_justify="left", header_style="bold")
    for column in columns:
        table.add_column(column, overflow="fold")
    return table


def print_doctor(runtimes: dict[str, Runtime], console: Console) -> None:
    table = _table("Runtimes", ("runtime", "status", "version", "install / reason"))
    for name, runtime in runtimes.items():
        if not runtime.available:
            table.add_row(name, styled(("missing", "red")), "–", console_text(runtime.why_unavailable()))
            continue
        try:
            runtime.describe(timeout=60)
            status = styled(("ready", "green"))
        except (RuntimeError, OSError, ValueError):
            status = styled(("not built", "yellow"), f" (parbench build --runtime {name})")
        table.add_row(name, status, console_text(runtime.version()), runtime.install)
    console.print(table)
    found_or_not = [(tool, on_path(tool), why) for tool, why in TOOLS] + distributed_engines()
    for what, found, detail in found_or_not:
        console.print(styled(("found  ", "green") if found else ("missing", "yellow"), f" {what}: {detail}"),
                      highlight=False)


def start_modes(model: Model) -> str:
    """What each start mode makes, and why a mode the model lacks cannot apply (protocol 3)."""
    offered = [f"{mode}: {what}" for mode, what in model.starts.items()]
    missing = [f"no {mode}: {why}" for mode, why in model.start_unavailable.items()]
    return "\n".join(offered + missing)


def print_listing(workloads: dict[str, Workload], described: dict[str, Description], skipped: list[str],
                  console: Console) -> None:
    for workload in workloads.values():
        scales = "; ".join(f"{s}: " + ", ".join(f"{k}={v}" for k, v in p.items())
                           for s, p in workload.scales.items())
        console.print(styled((workload.name, "bold"), f" — {workload.title}\n  {scales}"), highlight=False)
    models = _table("Models", ("runtime", "workload", "model", "family", "workers", "start (--param start=cold,warm)",
                               "note"))
    kernels = _table("Kernel classes (--param kernel=portable|tuned; portable is every scale's default)",
                     ("runtime", "workload", "kernel", "what runs"))
    for name, d in described.items():
        for workload, offer in d.workloads.items():
            for model in offer.models.values():
                models.add_row(name, workload, model.name, model.family, "yes" if model.workers else "",
                               start_modes(model), model.note)
            for kernel, detail in offer.kernels.items():
                kernels.add_row(name, workload, kernel, detail)
    console.print(models)
    console.print(kernels)
    for line in skipped:
        console.print(styled((line, "yellow")), highlight=False)
