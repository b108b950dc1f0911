"""Exports: one module per format behind one interface, the way hyperfine's src/export/ is.

A format is an `Exporter` (its name, its file extension, what it is, and a function from the
reports to text); adding one is a module here and a line in FORMATS. `run`, `sweep`, `exec`
and `show` take `--export-<name> FILE` for each (`-` for standard output).
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

from parbench.export import (csv_samples, csv_summary, github_benchmark, html_page, hyperfine_tables, json_format,
                             markdown_report, pyperf_format, text_report)
from parbench.export.base import Exporter, Report

FORMATS: tuple[Exporter, ...] = (
    json_format.EXPORTER, csv_summary.EXPORTER, csv_samples.EXPORTER, markdown_report.EXPORTER,
    pyperf_format.EXPORTER, github_benchmark.EXPORTER, html_page.EXPORTER, text_report.EXPORTER,
    *hyperfine_tables.EXPORTERS)


def formats() -> tuple[Exporter, ...]:
    return FORMATS


def by_name(name: str) -> Exporter:
    return next(f for f in formats() if f.name == name)


def write(exporter: Exporter, reports: list[Report], target: str) -> Path | None:
    """Writes the rendered reports to `target`, or to standard output for `-`."""
    text = exporter.render(reports)
    if target == "-":
        sys.stdout.write(text if text.endswith("\n") else text + "\n")
        sys.stdout.flush()
        return None
    path = Path(target)
    path.parent.mkdir(parents=True, exist_ok=True)
    # A temporary file renamed over the target: a full disk or a signal mid-write leaves the
    # previous file (or none), never half a report.
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise
    return path


def write_all(reports: list[Report], exports: dict, errors) -> None:
    """Every `--export-<name> FILE` the user gave (keys `export_<name>`, None when not given)."""
    for option, target in exports.items():
        if not option.startswith("export_") or target is None:
            continue
        exporter = by_name(option[len("export_"):].replace("_", "-"))
        try:
            path = write(exporter, reports, target)
        except OSError as error:
            raise OSError(f"cannot write {target}: {error.strerror or error}") from None
        if path is not None:
            errors.print(f"wrote {path}", highlight=False)


def check_writable(folder: Path) -> str | None:
    """Why reports cannot be written to `folder`, or None; asked before a run starts."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / f".parbench-write-test-{os.getpid()}"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        return f"cannot write reports to {folder}: {error.strerror or error}"
    return None
