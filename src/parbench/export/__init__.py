"""Exports: one module per format behind one interface, the way hyperfine's src/export/ is.

A format is an `Exporter` (its name, its file extension, what it is, and a function from the
reports to text); adding one is a module here and a line in FORMATS. `run`, `sweep`, `exec`
and `show` take `--export-<name> FILE` for each (`-` for standard output).
"""
from __future__ import annotations

import sys
from pathlib import Path

from parbench import targets
from parbench.escaping import one_line
from parbench.export import (csv_samples, csv_summary, github_benchmark, html_page, hyperfine_tables, json_format,
                             markdown_report, pyperf_format, text_report)
from parbench.export.base import Exporter, NotExportable, Report

LAYER = 8   # above report/ (the text formats render its tables)

FORMATS: tuple[Exporter, ...] = (
    json_format.EXPORTER, csv_summary.EXPORTER, csv_samples.EXPORTER, markdown_report.EXPORTER,
    pyperf_format.EXPORTER, github_benchmark.EXPORTER, html_page.EXPORTER, text_report.EXPORTER,
    *hyperfine_tables.EXPORTERS)


def formats() -> tuple[Exporter, ...]:
    return FORMATS


def by_name(name: str) -> Exporter:
    return next(f for f in formats() if f.name == name)


def write(exporter: Exporter, reports: list[Report], target: str) -> Path | None:
    """Writes the rendered reports to `target` (targets.py: a file replaced atomically, a device
    or FIFO written through), or to standard output for `-`."""
    text = exporter.render(reports)
    if target == "-":
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
        return None
    return targets.write_text(Path(target), text)


def write_all(reports: list[Report], exports: dict, errors) -> None:
    """Every `--export-<name> FILE` the user gave (keys `export_<name>`, None when not given)."""
    for option, target in exports.items():
        if not option.startswith("export_") or target is None:
            continue
        exporter = by_name(option[len("export_"):].replace("_", "-"))
        try:
            path = write(exporter, reports, target)
        except NotExportable as why:
            raise OSError(f"no --export-{exporter.name} written to {one_line(target)}: {why}") from None
        except OSError as error:
            raise OSError(f"cannot write {one_line(target)}: {error.strerror or error}") from None
        if path is not None:
            errors.print(f"wrote {one_line(path)}", highlight=False)


def check_writable(folder: Path) -> str | None:
    """Why reports cannot be written to `folder`, or None; asked before a run starts."""
    why = targets.folder_refusal(folder)
    return f"cannot write reports to {folder}: {why}" if why else None
