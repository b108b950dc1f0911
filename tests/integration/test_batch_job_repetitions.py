"""batch-job warms up like every workload (docs/protocol.md, batch-job): one process runs several
repetitions, restoring its job from the pristine tables before each but its first, and every
repetition's checksum, the final tables and the untouched pristine rows are checked."""
import json

from conftest import parbench


def test_a_python_batch_job_process_of_several_repetitions_verifies(tmp_path):
    db = str(tmp_path / "results.sqlite")
    done = parbench("run", "--workload", "batch-job", "--runtime", "python", "--model", "seq", "--scale", "smoke",
                    "--processes", "1", "--warmup", "2", "--repeat", "3", "--db", db, "--export-json", "-",
                    env={"PARBENCH_CACHE": str(tmp_path / "cache")}, check=True, timeout=300)
    document = json.loads(done.stdout[done.stdout.index("{"):done.stdout.rindex("}") + 1])
    [result] = [r for r in document["results"] if r["case"]["workload"] == "batch-job"]
    assert result["status"] == "ok", result
    [process] = [p for p in result["processes"] if p["index"] >= 0]
    samples = process["samples"]
    assert len(samples) == 3 and samples[0]["extra"]["warmup_reps"] == 2
    # every timed repetition came after a reset, which its prepare_ns counts: it did the whole job
    assert all(s["items"] == 16 and s["extra"]["prepare_ns"] > 0 for s in samples), samples
    assert result["steady_state"]["class"] != "one-shot"
