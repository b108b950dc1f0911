"""export/__init__.py: the registry of formats, and writing them to files or standard output."""
import json

import pytest
import unit_records
from unit_records import two_models

from parbench.export import FORMATS, by_name, check_writable, formats, write, write_all
from parbench.export.base import Exporter, Report


class Printed:
    """The console write_all tells what it wrote."""
    def __init__(self):
        self.lines = []

    def print(self, text, highlight=True):
        self.lines.append(text)


def test_each_format_has_one_name_and_an_extension():
    names = [f.name for f in formats()]
    assert formats() is FORMATS and len(names) == len(set(names))
    assert {"json", "csv", "csv-samples", "markdown", "pyperf", "github-benchmark", "html", "text",
            "hyperfine-markdown", "asciidoc", "orgmode"} <= set(names)
    assert all(f.extension and f.description for f in formats())


def test_every_format_renders_a_run_as_text():
    reports = [Report(two_models())]
    for exporter in formats():
        assert isinstance(exporter.render(reports), str) and exporter.render(reports), exporter.name


def test_a_format_is_found_by_its_name():
    assert by_name("csv-samples").name == "csv-samples" and by_name("json").extension == "json"


def test_write_replaces_the_file_with_the_rendered_reports(tmp_path):
    target = tmp_path / "deep" / "run.json"
    assert write(by_name("json"), [Report(two_models())], str(target)) == target
    assert json.loads(target.read_text())["results"][0]["command"] == "rt seq"


def test_write_to_a_dash_is_standard_output_ended_by_a_newline(capsys):
    plain = Exporter("plain", "txt", "text without a newline", lambda reports: "no newline")
    assert write(plain, [], "-") is None
    assert capsys.readouterr().out == "no newline\n"


def test_write_all_writes_each_export_given_and_says_where(tmp_path):
    printed, csv_path = Printed(), tmp_path / "samples.csv"
    write_all([Report(two_models())], {"export_csv_samples": str(csv_path), "export_json": None, "db": "x"}, printed)
    assert csv_path.read_text().startswith("run,key,workload")
    assert printed.lines == [f"wrote {csv_path}"] and not (tmp_path / "None").exists()


def test_write_all_to_a_dash_prints_and_says_nothing(capsys):
    printed = Printed()
    write_all([Report(two_models())], {"export_github_benchmark": "-"}, printed)
    assert json.loads(capsys.readouterr().out)[0]["unit"] == "ms" and printed.lines == []


def test_a_format_that_cannot_hold_the_run_writes_nothing_and_says_why(tmp_path):
    only_failures = unit_records.record([unit_records.failed_run()])
    with pytest.raises(OSError, match=r"no --export-pyperf written to .*pyperf\.json: .*no verified timing"):
        write_all([Report(only_failures)], {"export_pyperf": str(tmp_path / "pyperf.json")}, Printed())
    assert not (tmp_path / "pyperf.json").exists()


def test_a_target_that_cannot_be_written_names_it(tmp_path):
    (tmp_path / "file").write_text("")
    with pytest.raises(OSError, match=r"cannot write .*file/run\.csv"):
        write_all([Report(two_models())], {"export_csv": str(tmp_path / "file" / "run.csv")}, Printed())


def test_a_writable_folder_is_made_and_left_as_it_was(tmp_path):
    folder = tmp_path / "a" / "b"
    assert check_writable(folder) is None and list(folder.iterdir()) == []


def test_a_folder_that_cannot_be_made_says_why(tmp_path):
    (tmp_path / "file").write_text("")
    assert check_writable(tmp_path / "file" / "reports").startswith(f"cannot write reports to {tmp_path}/file/reports: ")
