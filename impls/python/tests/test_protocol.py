"""The command line of docs/protocol.md, through the real `run` script: --list, noop, exit codes 2 and 3."""
import json
import os
import subprocess
import unittest

RUN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "run")


def run(*args: str, shell_prefix: str = "", variants: str = "0\n") -> subprocess.CompletedProcess:
    """The run script with `variants` on its stdin (protocol 3: one line per repetition; protocol 4:
    as many repetitions as lines)."""
    command = " ".join([shell_prefix, RUN, *args]).strip()
    return subprocess.run(["bash", "-c", command], input=variants, capture_output=True, text=True, timeout=60)


def json_lines(out: subprocess.CompletedProcess) -> list[dict]:
    """The repetitions' lines, after the ready line."""
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert "ready" in lines[0], lines[0]
    return lines[1:]


class Protocol(unittest.TestCase):
    def test_list_names_every_workload_with_families(self):
        listing = json.loads(run("--list").stdout)
        self.assertEqual(listing["runtime"], "python")
        self.assertEqual(set(listing["workloads"]),
                         {"noop", "keygen", "sdes-ecb", "batch-job", "spawn-chain", "coroutine-swarm", "echo-server"})
        for workload in listing["workloads"].values():
            for model in workload["models"].values():
                self.assertIn(model["family"], {"seq", "threads", "processes", "async", "distributed", "pool", "event-loop"})

    def test_noop_prints_one_line_per_repetition(self):
        out = run("noop", variants="0\n" * 3)
        lines = json_lines(out)
        self.assertEqual([(l["rep"], l["items"], l["checksum"]) for l in lines], [(i, 0, "noop") for i in range(3)])
        self.assertTrue(all(isinstance(l["extra"]["cpu_user_ns"], int) for l in lines))
        self.assertTrue(all(l["ns"] >= 0 for l in lines))

    def test_workers_are_reported_under_extra(self):
        out = run("keygen", "--model", "threads", "--count", "6", "--workers", "3")
        line, = json_lines(out)
        self.assertEqual(line["extra"]["workers"], 3)
        self.assertEqual(len(line["extra"]["busy"]), 3)

    def test_unknown_model_exits_2_with_the_valid_ones(self):
        out = run("keygen", "--model", "foo")
        self.assertEqual(out.returncode, 2)
        self.assertIn("valid: seq, threads, processes", out.stderr)
        self.assertEqual(out.stdout, "")

    def test_unknown_workload_exits_2_with_the_valid_ones(self):
        out = run("fizz", "--model", "seq")
        self.assertEqual(out.returncode, 2)
        self.assertIn("valid: noop, keygen, sdes-ecb, batch-job, spawn-chain, coroutine-swarm", out.stderr)

    def test_bad_parameter_value_exits_2(self):
        self.assertEqual(run("keygen", "--model", "seq", "--source", "weak").returncode, 2)
        self.assertEqual(run("spawn-chain", "--model", "threads", "--n", "many").returncode, 2)
        self.assertEqual(run("batch-job", "--model", "seq", "--docs-dir", "/x", "--db", "mysql://x").returncode, 2)

    def test_missing_inputs_exit_2(self):
        self.assertEqual(run("sdes-ecb", "--model", "seq", "--input", "/no/such/file").returncode, 2)
        self.assertEqual(run("batch-job", "--model", "seq", "--docs-dir", "/no/such/dir",
                             "--db", "sqlite:/no/such.sqlite").returncode, 2)

    def test_workers_for_a_model_without_workers_exits_2(self):
        self.assertEqual(run("keygen", "--model", "seq", "--workers", "2").returncode, 2)

    def test_thread_creation_failure_is_a_limit_exit_3(self):
        # A 1 GiB address-space limit leaves room for about a hundred 8 MiB thread stacks.
        out = run("spawn-chain", "--model", "threads", "--n", "5000", shell_prefix="ulimit -v 1048576;")
        self.assertEqual(out.returncode, 3, out.stderr)
        error, = json_lines(out)
        self.assertEqual(error["error"], "limit")
        self.assertIn("can't start new thread", error["detail"])


if __name__ == "__main__":
    unittest.main()
