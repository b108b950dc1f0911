"""Protocol 3 (docs/protocol.md): the ready line, one variant read from stdin per repetition,
and the start modes: cold pools made and ended in each repetition, warm ones reused by every one."""
import json
import os
import subprocess
import tempfile
import threading
import time
import unittest

from parbench_py.__main__ import describe_runtime
from parbench_py.protocol import Job, processes_cpu_ns
from parbench_py.workloads import batch_job, keygen, sdes_ecb
from tests.test_batch_job import make_job

RUN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "run")


def start(*args: str) -> subprocess.Popen:
    return subprocess.Popen([RUN, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)


def run(*args: str, variants: str) -> subprocess.CompletedProcess:
    return subprocess.run([RUN, *args], input=variants, capture_output=True, text=True, timeout=120)


def write_input(data: bytes) -> str:
    path = os.path.join(tempfile.mkdtemp(prefix="parbench-py-p3-"), "input")
    with open(path, "wb") as file:
        file.write(data)
    return path


class ReadyLine(unittest.TestCase):
    def test_ready_comes_before_the_first_variant_is_read(self):
        process = start("spawn-chain", "--model", "asyncio", "--n", "10")
        try:
            self.assertEqual(json.loads(process.stdout.readline()), {"ready": "none"})   # no variant written yet
            process.stdin.write("7\n")
            process.stdin.flush()
            self.assertEqual(json.loads(process.stdout.readline())["checksum"], "17")
        finally:
            process.communicate(timeout=30)
        self.assertEqual(process.returncode, 0)

    def test_warm_ready_line_carries_start_ns_and_workers(self):
        out = run("keygen", "--model", "processes", "--count", "4", "--workers", "2", "--start", "warm",
                  variants="1\n")
        ready = json.loads(out.stdout.splitlines()[0])
        self.assertEqual((ready["ready"], ready["extra"]["workers"]), ("warm", 2))
        self.assertGreater(ready["start_ns"], 0)

    def test_cold_ready_line_has_no_start_ns(self):
        out = run("keygen", "--model", "threads", "--count", "4", "--workers", "2", variants="1\n")
        self.assertEqual(json.loads(out.stdout.splitlines()[0]), {"ready": "cold", "extra": {"workers": 2}})


class LateVariants(unittest.TestCase):
    def test_each_repetition_uses_the_line_written_for_it(self):
        process = start("spawn-chain", "--model", "threads", "--n", "5")
        try:
            process.stdout.readline()
            answers = []
            for variant in (100, 200, 300):   # written only after the line before it was read, as the launcher does
                process.stdin.write(f"{variant}\n")
                process.stdin.flush()
                answers.append(json.loads(process.stdout.readline())["checksum"])
        finally:
            process.communicate(timeout=30)
        self.assertEqual(answers, ["105", "205", "305"])

    def test_end_of_file_ends_the_case_cleanly_after_its_variants(self):
        # Protocol 4: only the launcher knows how many repetitions run; end of file is the end,
        # before the first variant too (a process with no repetition).
        for variants in ("", "1\n", "1\n2\n3\n"):
            with self.subTest(variants=variants):
                out = run("spawn-chain", "--model", "asyncio", "--n", "5", variants=variants)
                self.assertEqual((out.returncode, out.stderr), (0, ""))
                ready, *lines = [json.loads(line) for line in out.stdout.splitlines()]
                self.assertEqual(ready, {"ready": "none"})
                self.assertEqual([(line["rep"], line["checksum"]) for line in lines],
                                 [(j, str(int(v) + 5)) for j, v in enumerate(variants.split())])
                self.assertTrue(all("warmup" not in line for line in lines))

    def test_batch_job_and_noop_read_the_line_and_ignore_it(self):
        out = run("noop", variants="0\n0\n")
        self.assertEqual([json.loads(line).get("checksum") for line in out.stdout.splitlines()], [None, "noop", "noop"])

    def test_a_line_that_is_not_a_decimal_integer_exits_2(self):
        out = run("spawn-chain", "--model", "asyncio", "--n", "5", variants="five\n")
        self.assertEqual(out.returncode, 2)
        self.assertIn("not a variant", out.stderr)

    def test_a_key_variant_outside_10_bits_exits_2(self):
        out = run("sdes-ecb", "--model", "seq", "--input", write_input(b"abc"), variants="1024\n")
        self.assertEqual(out.returncode, 2)
        self.assertIn("10-bit key", out.stderr)

    def test_the_variants_argument_is_gone(self):
        out = run("spawn-chain", "--model", "asyncio", "--n", "5", "--variants", "1", variants="1\n")
        self.assertEqual(out.returncode, 2)
        self.assertIn("unknown parameter --variants", out.stderr)

    def test_the_warmup_and_repeat_arguments_are_gone(self):
        # Protocol 4: the launcher alone decides which repetitions are warm-ups and how many run.
        for flag in ("--warmup", "--repeat"):
            with self.subTest(flag=flag):
                out = run("spawn-chain", "--model", "asyncio", "--n", "5", flag, "1", variants="1\n")
                self.assertEqual((out.returncode, out.stdout), (2, ""))
                self.assertEqual(out.stderr.splitlines(), [f"unknown parameter {flag} for spawn-chain; valid: --n"])


class StartModes(unittest.TestCase):
    def test_every_parallel_model_says_what_each_mode_makes_or_why_not(self):
        for workload, entry in describe_runtime()["workloads"].items():
            for name, model in entry["models"].items():
                with self.subTest(workload=workload, model=name):
                    modes = {**model.get("start", {}), **model.get("start_unavailable", {})}
                    if model.get("workers"):
                        self.assertEqual(set(modes), {"cold", "warm"})
                    # A server makes its workers before its ready line and is timed by its client:
                    # it offers no start mode, and says why.
                    if model.get("workers") and workload != "echo-server":
                        self.assertTrue(model["start"])
                    if workload in ("spawn-chain", "coroutine-swarm") and model["family"] != "seq":
                        self.assertEqual((model.get("start"), set(model["start_unavailable"])), (None, {"cold", "warm"}))

    def test_every_line_echoes_the_mode_and_cold_is_the_default(self):
        for mode in ("cold", "warm", None):
            with self.subTest(mode=mode):
                chosen = ["--start", mode] if mode else []
                out = run("keygen", "--model", "threads", "--count", "8", "--workers", "2", *chosen,
                          variants="1\n2\n3\n")
                lines = [json.loads(line) for line in out.stdout.splitlines()]
                self.assertEqual(lines[0]["ready"], mode or "cold")
                self.assertEqual({line["extra"]["start"] for line in lines[1:]}, {mode or "cold"})

    def test_a_model_without_a_start_mode_refuses_one(self):
        out = run("keygen", "--model", "seq", "--start", "cold", variants="1\n")
        self.assertEqual(out.returncode, 2)
        self.assertIn("takes no --start", out.stderr)

    def test_a_mode_a_model_cannot_offer_exits_2_with_the_reason(self):
        out = run("batch-job", "--model", "process-per-doc", "--docs-dir", "/tmp", "--db", "sqlite:/dev/null",
                  "--start", "warm", variants="0\n")
        self.assertEqual(out.returncode, 2)
        self.assertIn("has no warm start: its units are made per document", out.stderr)
        self.assertEqual(out.stdout, "")


def warm(model_name: str, workload, params: dict, workers: int = 2):
    """The model's warm session and a function running one repetition of it, as the protocol does."""
    full = {p.name: p.default for p in workload.params}
    full.setdefault(workload.variant, 0)
    full.update(params, kernel="portable")
    loaded, _ = workload.load(full)
    model = workload.models[model_name]
    return model.session(full, workers, loaded), lambda session: model.run(Job(full, loaded, workers, session))


def workers_of(outcome) -> set:
    return {worker for worker, _, _ in outcome.busy}


class WarmReusesOnePool(unittest.TestCase):
    def test_warm_threads_run_every_repetition_on_the_threads_made_before_it(self):
        opened, repetition = warm("threads", sdes_ecb.WORKLOAD, {"input": write_input(os.urandom(4000)), "chunk": 100})
        with opened as session:
            threads_before = {thread.native_id for thread in threading.enumerate()}
            ran = [workers_of(repetition(session)) for _ in range(3)]
            self.assertEqual({thread.native_id for thread in threading.enumerate()}, threads_before)
        self.assertEqual(ran[0], ran[1])
        self.assertEqual(ran[1], ran[2])
        self.assertLessEqual(ran[0], threads_before)
        self.assertEqual(len(ran[0]), 2)

    def test_warm_processes_run_every_repetition_in_the_processes_made_before_it(self):
        for workload, params in ((keygen.WORKLOAD, {"count": 50, "chunk": 5}),
                                 (sdes_ecb.WORKLOAD, {"input": write_input(os.urandom(3000)), "chunk": 100})):
            with self.subTest(workload=workload.name):
                opened, repetition = warm("processes", workload, params)
                with opened as session:
                    ran = [workers_of(repetition(session)) for _ in range(3)]
                    self.assertEqual(ran, [session.pool.pids] * 3)
                self.assertEqual(len(ran[0]), 2)

    def test_warm_batch_job_keeps_its_workers_and_their_connections(self):
        for model in ("threads", "processes"):
            with self.subTest(model=model):
                docs_dir, url, expected = make_job(tempfile.mkdtemp(prefix="parbench-py-p3-"), 6, 11)
                opened, repetition = warm(model, batch_job.WORKLOAD, {"docs_dir": docs_dir, "db": url}, workers=3)
                with opened as session:
                    if model == "threads":
                        self.assertEqual(len(session.connections.by_thread), 3)   # opened before the first repetition
                    outcome = repetition(session)
                    self.assertEqual(outcome.checksum(), expected)
                    if model == "processes":
                        self.assertEqual(workers_of(outcome), session.pool.pids)
                    self.assertEqual(outcome.extra["workers_used"], 3)
                    self.assertEqual(repetition(session).items, 0)   # every document is aligned now: no round to wait for

    def test_cold_processes_are_new_in_every_repetition(self):
        full = {p.name: p.default for p in keygen.WORKLOAD.params}
        full.update(count=50, chunk=5, kernel="portable")
        ran = [workers_of(keygen.WORKLOAD.models["processes"].run(Job(full, None, 2))) for _ in range(2)]
        self.assertEqual(len(ran[0] | ran[1]), 4)

    def test_cold_threads_are_all_joined_when_the_repetition_ends(self):
        before = threading.active_count()
        full = {p.name: p.default for p in keygen.WORKLOAD.params}
        full.update(count=50, chunk=5, kernel="portable")
        keygen.WORKLOAD.models["threads"].run(Job(full, None, 3))
        self.assertEqual(threading.active_count(), before)

    def test_a_warm_pools_worker_cpu_is_read_from_its_threads(self):
        # Spins until this thread has had 50 ms of CPU by the interpreter's own clock, not for 50 ms
        # of wall time: on a loaded machine 50 ms of wall gave 17 ms of CPU and the test failed.
        started, own_start = processes_cpu_ns([os.getpid()]), time.thread_time_ns()
        deadline = time.monotonic() + 10
        while time.thread_time_ns() - own_start < 50_000_000 and time.monotonic() < deadline:
            pass
        spent = time.thread_time_ns() - own_start
        self.assertGreaterEqual(spent, 50_000_000)
        self.assertGreater(processes_cpu_ns([os.getpid()]) - started, spent - 5_000_000)


if __name__ == "__main__":
    unittest.main()
