"""The like-for-like rules the harness enforces: the whole process tree's memory, interleaved
order (stored), a parallel case that used one worker flagged, ceilings shown beside the cases."""
import json
import shlex
import sqlite3
import sys

from conftest import parbench


def test_the_tree_peak_counts_every_process_of_a_forking_command(db):
    # 8 children that each touch 50 MiB at the same time: the largest process is ~50 MiB,
    # the tree is over 400 MiB.
    script = ("import os, time\n"
              "kids = []\n"
              "for _ in range(8):\n"
              "    pid = os.fork()\n"
              "    if pid == 0:\n"
              "        block = bytearray(50 << 20)\n"
              "        block[::4096] = b'x' * len(block[::4096])\n"
              "        time.sleep(1.0)\n"
              "        os._exit(0)\n"
              "    kids.append(pid)\n"
              "for pid in kids: os.waitpid(pid, 0)\n")
    parbench("exec", "--runs", "2", "--warmup", "0", "--db", db, "--", f"{sys.executable} -c {shlex.quote(script)}",
             check=True)
    rows = sqlite3.connect(db).execute("SELECT max_rss_kb, tree_peak_rss_kb, memory_json FROM processes").fetchall()
    for largest, tree, memory in rows:
        assert tree >= 400 * 1024, (largest, tree, memory)
        assert largest < 100 * 1024
        assert json.loads(memory)["sample_ms"] > 0       # how it was measured is stored with it


def _run_interleaved(project, db, order):
    parbench("run", "--workload", "spawn-chain", "--model", "ok", "--model", "slow", "--scale", "smoke",
             "--processes", "3", "--order", order, "--db", db, root=project, check=True)
    return [model for (model,) in sqlite3.connect(db).execute(
        "SELECT c.model FROM processes p JOIN cases c ON c.id = p.case_id "
        "WHERE c.workload != 'noop' AND p.idx >= 0 ORDER BY p.seq")]


def test_interleaved_order_is_the_default_and_is_stored(faulty_project, db):
    assert _run_interleaved(faulty_project, db, "interleaved") == ["ok", "slow"] * 3


def test_sequential_order_on_request(faulty_project, db):
    assert _run_interleaved(faulty_project, db, "sequential") == ["ok"] * 3 + ["slow"] * 3


def test_shuffled_order_is_stored_with_its_seed(faulty_project, db):
    parbench("run", "--workload", "spawn-chain", "--model", "ok", "--model", "slow", "--scale", "smoke",
             "--processes", "3", "--order", "shuffled", "--seed", "7", "--db", db, root=faulty_project, check=True)
    options = json.loads(sqlite3.connect(db).execute("SELECT options_json FROM runs").fetchone()[0])
    assert options["order"] == "shuffled" and options["seed"] == 7


def test_a_parallel_case_that_used_one_worker_is_flagged(hostile_project, db):
    done = parbench("run", "--workload", "spawn-chain", "--model", "one-worker", "--workers", "2", "--scale",
                    "smoke", "--db", db, root=hostile_project, check=True)
    assert "only one processed any chunk" in done.stdout and "sequential run in disguise" in done.stdout
    assert "ran on 1 worker" in done.stdout          # in the summary too


def test_the_ceiling_and_baselines_stand_beside_the_case(hostile_project, db):
    done = parbench("run", "--workload", "spawn-chain", "--model", "with-ceiling", "--scale", "smoke",
                    "--db", db, root=hostile_project, check=True)
    flat = done.stdout.replace("\n", " ")
    # The case table fits 160 columns (issue 56), so "4.00× own copy" wraps inside its cell.
    assert "4.00×" in flat and "own copy" in flat
    assert "measured beside it: copy" in flat and "memcpy" in flat
