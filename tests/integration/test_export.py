"""Exports the ecosystem reads (one module per format), named baselines, and the exit codes."""
import json
import subprocess
import sys

from conftest import REPO, parbench

SCHEMA = REPO / "schemas" / "parbench-export.schema.json"
OK_RUN = ("run", "--workload", "spawn-chain", "--model", "ok", "--model", "slow", "--scale", "smoke",
          "--processes", "3", "--repeat", "4")


def test_every_format_is_one_module_registered_once():
    from parbench.export import formats
    names = [f.name for f in formats()]
    assert len(names) == len(set(names))
    assert {"json", "csv", "csv-samples", "markdown", "pyperf", "github-benchmark", "html", "text"} <= set(names)


def test_the_json_export_of_a_run_validates_against_the_schema(faulty_project, db, tmp_path):
    import jsonschema          # from the test extra: the schema is checked, never skipped
    target = tmp_path / "run.json"
    parbench(*OK_RUN, "--model", "crash", "--db", db, "--export-json", str(target), root=faulty_project, check=True)
    data = json.loads(target.read_text())
    jsonschema.validate(data, json.loads(SCHEMA.read_text()))
    assert {r["case"]["model"] for r in data["results"]} >= {"ok", "slow"}
    assert [f["case"]["model"] for f in data["failures"]] == ["crash"]


def test_pyperf_compare_to_reads_two_parbench_runs(faulty_project, db, tmp_path):
    for name, delay in (("a", "20"), ("b", "60")):
        parbench(*OK_RUN, "--db", db, "--export-pyperf", str(tmp_path / f"{name}.json"), root=faulty_project,
                 env={"FAULTY_DELAY_MS": delay}, check=True)
    done = subprocess.run([sys.executable, "-m", "pyperf", "compare_to", str(tmp_path / "a.json"),
                           str(tmp_path / "b.json")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "spawn-chain/faulty/ok" in done.stdout and "slower" in done.stdout


def test_github_action_benchmark_format(faulty_project, db, tmp_path):
    target = tmp_path / "bench.json"
    parbench(*OK_RUN, "--db", db, "--export-github-benchmark", str(target), root=faulty_project, check=True)
    entries = json.loads(target.read_text())
    assert {e["name"] for e in entries} >= {"spawn-chain/faulty/ok[n=1000]"}
    assert all(e["unit"] == "ms" and e["value"] > 0 and "CI" in e["range"] for e in entries)


def test_compare_reads_two_exported_files_without_a_store(faulty_project, db, tmp_path):
    for name, delay in (("a", "20"), ("b", "80")):
        parbench(*OK_RUN, "--db", db, "--export-json", str(tmp_path / f"{name}.json"), root=faulty_project,
                 env={"FAULTY_DELAY_MS": delay}, check=True)
    done = parbench("compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--db", "/nonexistent/x.sqlite",
                    "--fail-on-regression", "50", root=faulty_project)
    assert done.returncode == 1 and "x slower" in done.stdout and "regressed by more than 50 %" in done.stderr
    # Each side shows its own sitting's drift sentinel; nothing is normalised.
    assert done.stdout.count("over this sitting (drift sentinel") == 2


def test_named_baselines(faulty_project, db):
    parbench(*OK_RUN, "--db", db, "--save-baseline", "main", root=faulty_project, env={"FAULTY_DELAY_MS": "20"},
             check=True)
    parbench(*OK_RUN, "--db", db, root=faulty_project, env={"FAULTY_DELAY_MS": "80"}, check=True)
    done = parbench("compare", "--baseline", "main", "--db", db, "--fail-on-regression", "50", root=faulty_project)
    assert done.returncode == 1 and "x slower" in done.stdout
    assert done.stdout.count("over this sitting (drift sentinel") == 2
    unknown = parbench("compare", "--baseline", "nope", "--db", db, root=faulty_project)
    assert unknown.returncode == 2 and "no baseline 'nope'; saved: main" in unknown.stderr


def test_exit_codes_mean_one_thing_each(faulty_project, db):
    crash = ("run", "--workload", "spawn-chain", "--model", "ok", "--model", "crash", "--scale", "smoke",
             "--db", db)
    assert parbench(*crash, root=faulty_project).returncode == 0             # reported, not a failure
    strict = parbench(*crash, "--strict", root=faulty_project)
    assert strict.returncode == 3 and "without a verified timing (--strict)" in strict.stderr
    assert parbench("run", "--scale", "huge", "--db", db, root=faulty_project).returncode == 2
    same = parbench("compare", "1", "2", "--db", db, "--fail-on-regression", "1000", root=faulty_project)
    assert same.returncode == 0
