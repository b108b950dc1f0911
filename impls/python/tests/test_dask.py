"""The dask models on a real small cluster started from Dask's entry points: spec vectors, what
really ran, a user's own cluster, and faults (a worker killed mid-case, a scheduler out of reach)."""
import contextlib
import hashlib
import os
import signal
import subprocess
import tempfile
import time
import unittest
from unittest import mock

from parbench_py import dask_cluster
from parbench_py.protocol import Job, RunFailed
from parbench_py.workloads import batch_job, keygen, sdes_ecb
from tests.test_batch_job import make_job
from tests.test_sdes_ecb import FOX, KEY_642_TABLE

RUN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "run")


def run_dask(session, workload, params: dict, workers: int = 2) -> tuple[int, str, dict]:
    """(items, checksum, extra) of one repetition of the workload's dask model on `session`."""
    full = {p.name: p.default for p in workload.params}
    full.update(params)
    loaded, _ = workload.load(full)
    outcome = workload.models["dask"].run(Job(full, loaded, workers, session))
    checksum, extra = outcome.finish()
    return outcome.items, checksum, {**session.extra, **extra}


def write_file(data: bytes) -> str:
    path = os.path.join(tempfile.mkdtemp(prefix="parbench-py-dask-"), "input")
    with open(path, "wb") as file:
        file.write(data)
    return path


def gone(pid: int) -> bool:
    """Ended: no such process, or a zombie waiting for its new parent to reap it."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def children(pid: int) -> dict[int, str]:
    """The processes whose parent is `pid`, with their command lines."""
    found = {}
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                command = cmdline.read().replace(b"\0", b" ").decode()
        except (OSError, ValueError, IndexError):
            continue
        if parent == pid:
            found[int(entry)] = command
    return found


@unittest.skipUnless(dask_cluster.available(), "distributed is not installed")
class DaskOnALocalCluster(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.stack = contextlib.ExitStack()
        cls.session = cls.stack.enter_context(dask_cluster.dask_session({"scheduler": "", "connect_timeout": 10}, 2))
        cls.pids = [process.pid for process in [*cls.session.processes.values(), cls.session.scheduler_process]]
        cls.executor_threads_at_start = cls.session.client.run(
            lambda: [thread.name for thread in __import__("threading").enumerate() if "Dask-Default-Threads" in thread.name])

    @classmethod
    def tearDownClass(cls):
        cls.stack.close()
        assert all(gone(pid) for pid in cls.pids), "a cluster process outlived its session"

    def test_every_worker_thread_ran_before_the_first_repetition(self):
        # A worker starts its executor's thread at its first task: the warm session runs one
        # there, so no repetition's task runs on a thread made in that repetition.
        self.assertEqual([len(names) for names in self.executor_threads_at_start.values()], [1, 1])

    def test_the_cluster_is_ours_with_one_thread_per_worker(self):
        extra = self.session.extra
        self.assertEqual((extra["cluster"], extra["cluster_workers"], extra["cluster_threads"]), ("local", 2, 2))
        self.assertGreater(extra["cluster_start_ns"], 0)
        self.assertTrue(extra["dask_version"] and extra["distributed_version"])

    def test_keygen_seeded_vectors(self):
        self.assertEqual(run_dask(self.session, keygen.WORKLOAD, {"count": 3, "bytes": 10, "source": "seeded",
                                                                  "seed": 1})[1], "d3605c1b2c10e632")
        items, checksum, extra = run_dask(self.session, keygen.WORKLOAD, {"count": 257, "bytes": 1000,
                                                                          "source": "seeded", "seed": 7})
        self.assertEqual((items, checksum), (257, "7631c31158f50f9a"))
        self.assertEqual((extra["chunk"], extra["chunks"], extra["workers_used"]), (129, 2, 2))
        self.assertEqual(extra["ceiling_ns"], extra["csprng_ns"] + extra["base32_ns"])

    def test_sdes_fox_and_the_key_642_table_for_both_ciphers(self):
        fox, every_byte = write_file(FOX), write_file(bytes(range(256)))
        for cipher in sdes_ecb.CIPHERS:
            with self.subTest(cipher=cipher):
                _, checksum, extra = run_dask(self.session, sdes_ecb.WORKLOAD, {"input": fox, "cipher": cipher})
                self.assertEqual(checksum, "914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf")
                self.assertEqual((extra["chunk"], extra["chunks"], extra["workers_used"]), (22, 2, 2))
                self.assertEqual(extra["ceiling"], "copy")
                _, checksum, _ = run_dask(self.session, sdes_ecb.WORKLOAD, {"input": every_byte, "cipher": cipher,
                                                                           "chunk": 100})
                self.assertEqual(checksum, hashlib.sha256(bytes.fromhex(KEY_642_TABLE)).hexdigest())

    def test_batch_job_stores_the_expected_annotations_from_the_workers(self):
        docs_dir, url, expected = make_job(tempfile.mkdtemp(prefix="parbench-py-dask-"), 6, 11)
        items, checksum, extra = run_dask(self.session, batch_job.WORKLOAD, {"docs_dir": docs_dir, "db": url})
        self.assertEqual((items, checksum), (6, expected))
        self.assertEqual((extra["chunk"], extra["chunks"], extra["workers_used"]), (1, 6, 2))

    def test_empty_inputs_send_no_task(self):
        _, checksum, extra = run_dask(self.session, sdes_ecb.WORKLOAD, {"input": write_file(b""), "cipher": "table"})
        self.assertEqual((checksum, extra["chunks"], extra["workers_used"]), (hashlib.sha256(b"").hexdigest(), 0, 0))
        docs_dir, url, expected = make_job(tempfile.mkdtemp(prefix="parbench-py-dask-"), 0, 1)
        self.assertEqual(run_dask(self.session, batch_job.WORKLOAD, {"docs_dir": docs_dir, "db": url})[:2], (0, expected))

    def test_a_running_cluster_is_used_as_remote(self):
        with dask_cluster.dask_session({"scheduler": self.session.client.scheduler.address,
                                        "connect_timeout": 10}, 7) as remote:
            _, checksum, extra = run_dask(remote, keygen.WORKLOAD, {"count": 3, "bytes": 10, "source": "seeded",
                                                                    "seed": 1}, workers=7)
        self.assertEqual(checksum, "d3605c1b2c10e632")
        self.assertEqual((extra["cluster"], extra["workers"], extra["cluster_threads"]), ("remote", 2, 2))
        self.assertIn("not measured", extra["memory"])


@unittest.skipUnless(dask_cluster.available(), "distributed is not installed")
class DaskFaults(unittest.TestCase):
    def test_an_unreachable_scheduler_fails_within_the_connect_timeout(self):
        started = time.monotonic()
        with self.assertRaisesRegex(RunFailed, r"dask scheduler tcp://127\.0\.0\.1:1 could not be reached within 1 s"):
            with dask_cluster.dask_session({"scheduler": "tcp://127.0.0.1:1", "connect_timeout": 1.0}, 2):
                pass
        self.assertLess(time.monotonic() - started, 15)

    def test_a_cluster_that_does_not_start_in_time_fails_and_leaves_no_process(self):
        with mock.patch.object(dask_cluster, "START_TIMEOUT_S", 0.3):
            with self.assertRaisesRegex(RunFailed, r"the dask cluster did not start within 0\.3 s"):
                with dask_cluster.dask_session({"scheduler": "", "connect_timeout": 10}, 2):
                    pass
        self.assertEqual([command for command in children(os.getpid()).values() if "distributed.cli" in command], [])

    def test_a_worker_killed_mid_case_fails_the_run_with_one_line_and_leaves_no_process(self):
        run = subprocess.Popen([RUN, "sdes-ecb", "--model", "dask", "--input", write_file(os.urandom(30000)),
                                "--cipher", "bitwise", "--workers", "2"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            run.stdin.write("642\n" * 200)   # every repetition's variant (a pipe holds far more than 800 bytes)
            run.stdin.flush()
            self.assertIn('"ready":"warm"', run.stdout.readline())
            self.assertIn('"rep":0', run.stdout.readline())   # the cluster is up and working
            cluster = children(run.pid)
            worker = next(pid for pid, command in cluster.items() if "dask_worker" in command)
            os.kill(worker, signal.SIGKILL)
            _, stderr = run.communicate(timeout=60)
        finally:
            run.kill()
        self.assertEqual(run.returncode, 1)
        self.assertRegex(stderr.strip(), r"^dask worker tcp://127\.0\.0\.1:\d+ died during the run \(killed by SIGKILL")
        self.assertNotIn("Traceback", stderr)
        self.assertEqual(len(cluster), 3)   # the scheduler and both workers
        deadline = time.monotonic() + 10
        while not all(gone(pid) for pid in cluster) and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual([pid for pid in cluster if not gone(pid)], [])


if __name__ == "__main__":
    unittest.main()
