"""`parbench sweep` end to end, on real implementations."""
import json
import sqlite3

from conftest import parbench, require_runtime
from parbench.measure import runtimes as runtimes_module


def _analyses(db: str, kind: str) -> list[dict]:
    return [json.loads(r) for (r,) in sqlite3.connect(db).execute(
        "SELECT result_json FROM analyses WHERE kind = ?", (kind,))]


def test_task_sweep_reports_slopes_the_largest_n_and_the_failure(faulty_project, db):
    done = parbench("sweep", "tasks", "--workload", "spawn-chain", "--model", "ok", "--model", "limit",
                    "--counts", "1000,4000,16000", "--scale", "smoke", "--processes", "2", "--db", db,
                    root=faulty_project)
    assert done.returncode == 0, done.stdout + done.stderr
    results = {r["model"]: r for r in _analyses(db, "per-task")}
    assert results["ok"]["largest_ok"] == 16000 and results["ok"]["counts"] == [1000, 4000, 16000]
    assert results["ok"]["bytes_per_unit"] is not None and results["ok"]["time_per_unit_ns"] is not None
    assert results["limit"]["largest_ok"] is None
    assert results["limit"]["failure"] == {"n": 1000, "outcome": "limit",
                                           "detail": "on the verification input, before timing: n=37: Too many processes"}
    # a model that failed is not run again at larger counts
    limit_cases = sqlite3.connect(db).execute("SELECT COUNT(*) FROM cases WHERE model = 'limit'").fetchone()[0]
    assert limit_cases == 1
    assert "Per task: spawn-chain/faulty/ok" in done.stdout


def test_worker_sweep_fits_amdahl_on_real_processes(db):
    require_runtime(runtimes_module.load_all()["python"])
    done = parbench("sweep", "workers", "--workload", "sdes-ecb", "--runtime", "python", "--model", "processes",
                    "--param", "cipher=table", "--scale", "smoke", "--workers", "1,2", "--processes", "1",
                    "--repeat", "2", "--db", db)
    assert done.returncode == 0, done.stdout + done.stderr
    cold, warm = _analyses(db, "scaling")            # a worker sweep runs both start modes by default
    for result in (cold, warm):
        assert result["workers"] == [1, 2] and result["amdahl"] is not None
    assert done.stdout.count("Scaling: sdes-ecb/python/processes") == 2     # one curve per start mode


def test_size_sweep_reports_a_crossover_verdict_for_each_parallel_model(db):
    require_runtime(runtimes_module.load_all()["python"])
    done = parbench("sweep", "size", "--workload", "sdes-ecb", "--runtime", "python", "--model", "processes",
                    "--param", "cipher=table", "--scale", "smoke", "--from", "64", "--to", "1048576",
                    "--factor", "32", "--refine", "1", "--processes", "2", "--repeat", "2", "--db", db)
    assert done.returncode == 0, done.stdout + done.stderr
    results = _analyses(db, "crossover")             # a size sweep runs both start modes by default
    assert sorted(r["start"] for r in results) == ["cold", "warm"]
    for result in results:
        assert {64, 2048, 65536, 1048576} <= set(result["sizes"]) and result["verdict"]   # and any refinement
    assert done.stdout.count("Crossover: sdes-ecb/python/processes") == 2
    assert "Crossover by start mode: sdes-ecb" in done.stdout
    [modes] = _analyses(db, "crossover-modes")
    [row] = modes["rows"]
    assert (row["runtime"], row["model"]) == ("python", "processes") and set(row["crossover"]) == {"cold", "warm"}
    assert row["fixed_cost_ns"] is not None and row["at_size"] == 64


def test_a_sweeps_tables_read_in_size_order_whatever_order_they_were_measured_in():
    from parbench.records import Case, CaseResult, CaseRun, RunRecord
    from parbench.report.rows import groups
    sizes = [64, 4096, 1024, 2896, "seed-article"]          # 2896: a bisection point measured last
    results = [CaseResult(CaseRun(Case("sdes-ecb", "rust", "seq", "seq", {"size": s, "cipher": "bitwise"}), "x"))
               for s in sizes]
    record = RunRecord(None, "", "smoke", {}, {}, {}, results)
    assert [g.params["size"] for g in groups(record)] == [64, 1024, 2896, 4096, "seed-article"]
