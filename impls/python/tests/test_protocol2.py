"""Protocol 2 (docs/protocol.md, "Proof of work"): variants (on stdin since protocol 3), CPU and phase times,
busy intervals, live units, switches, probes and kernels, with the spec's test vectors."""
import hashlib
import json
import os
import subprocess
import tempfile
import unittest

from parbench_py.digest import splitmix64_bytes
from parbench_py.protocol import busy_intervals
from parbench_py.workloads import coroutine_swarm, keygen, sdes_ecb, spawn_chain
from tests.helpers import in_process_models, run_model

RUN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "run")
FOX = b"The quick brown fox jumps over the lazy dog\n"


def lines(*args: str, variants: tuple[int, ...] = (0,)) -> list[dict]:
    """The repetitions' lines (after the ready line) of the run script fed `variants` on stdin."""
    done = subprocess.run([RUN, *args], input="".join(f"{variant}\n" for variant in variants),
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise AssertionError(f"exit {done.returncode}: {done.stderr}")
    ready, *rest = [json.loads(line) for line in done.stdout.splitlines()]
    assert "ready" in ready, ready
    return rest


def write(data: bytes) -> str:
    path = os.path.join(tempfile.mkdtemp(prefix="parbench-py-p2-"), "input")
    with open(path, "wb") as file:
        file.write(data)
    return path


class Vectors(unittest.TestCase):
    def test_spawn_chain_n_1000_start_123456_answers_124456_in_every_model(self):
        for model in spawn_chain.WORKLOAD.models:
            with self.subTest(model=model):
                _, checksum, extra = run_model(spawn_chain.WORKLOAD, model, {"n": 1000, "start": 123456})
                self.assertEqual((checksum, extra["live_units"]), ("124456", 1000))

    def test_coroutine_swarm_salts(self):
        vectors = {0: "1161d008ce58dc37", 1000: "bb33744708f665dd", 4294967295: "2540eadf7cfb00ad"}
        for model in coroutine_swarm.WORKLOAD.models:
            for salt, digest in vectors.items():
                with self.subTest(model=model, salt=salt):
                    _, checksum, _ = run_model(coroutine_swarm.WORKLOAD, model, {"tasks": 3, "steps": 10, "salt": salt})
                    self.assertEqual(checksum, digest)

    def test_keygen_seeded_probes_count_3_bytes_10_seed_1(self):
        _, checksum, extra = run_model(keygen.WORKLOAD, "seq", {"count": 3, "bytes": 10, "source": "seeded",
                                                                "seed": 1, "probes": (0, 1, 2)})
        self.assertEqual(extra["probes"], ["yfoafcpmfufjcz7m", "m7wi4znbrxv34xsv", "lzktf67oukj7qc6j"])
        self.assertEqual(checksum, "d3605c1b2c10e632")

    def test_probes_follow_the_generation_order_in_every_model(self):
        params = {"count": 23, "bytes": 9, "source": "seeded", "seed": 77, "chunk": 4, "probes": (22, 0, 5, 4)}
        wanted = [keygen.base32_lower(splitmix64_bytes(77, index, 9)).decode() for index in params["probes"]]
        for model in in_process_models(keygen.WORKLOAD):
            with self.subTest(model=model):
                self.assertEqual(run_model(keygen.WORKLOAD, model, params, workers=3)[2]["probes"], wanted)


class Counters(unittest.TestCase):
    def test_seq_swarm_counts_tasks_minus_one_switches(self):
        self.assertEqual(run_model(coroutine_swarm.WORKLOAD, "seq", {"tasks": 7, "steps": 4})[2]["switches"], 6)

    def test_async_swarms_interleave(self):
        for model in coroutine_swarm.WORKLOAD.models:
            if model != "seq":
                with self.subTest(model=model):
                    extra = run_model(coroutine_swarm.WORKLOAD, model, {"tasks": 5, "steps": 3})[2]
                    self.assertEqual(extra["switches"], 5 * 3 - 1)   # round robin: every step is another task

    def test_busy_intervals_one_per_worker_from_the_clock_start(self):
        reported = [("b", 150, 170), ("a", 110, 120), ("b", 130, 140), ("a", 125, 190)]
        self.assertEqual(busy_intervals(reported, 100), [[0, 10, 90], [1, 30, 70]])


class CommandLine(unittest.TestCase):
    def test_variants_rep_lines_and_phase_fields(self):
        out = lines("spawn-chain", "--model", "asyncio", "--n", "50", variants=(1, 2, 3, 4))
        self.assertEqual([line["rep"] for line in out], [0, 1, 2, 3])   # protocol 4: no warm-up lines
        self.assertEqual([line["checksum"] for line in out], ["51", "52", "53", "54"])
        for line in out:
            for field in ("cpu_user_ns", "cpu_sys_ns", "checksum_ns", "prepare_ns", "cleanup_ns"):
                self.assertIsInstance(line["extra"][field], int)
                self.assertGreaterEqual(line["extra"][field], 0)

    def test_a_cold_pools_ceiling_reports_starting_its_own_pool_and_a_warm_one_does_not(self):
        # Its start and its end happen between two lines, outside the ceiling's clock: unreported,
        # they were time the launcher saw and no phase held (ending it is booked as cleanup_ns).
        path = write(FOX * 50)
        for workload, args in (("sdes-ecb", ("--input", path, "--cipher", "table")), ("keygen", ("--count", "20"))):
            for model in ("threads", "processes"):
                with self.subTest(workload=workload, model=model):
                    cold, warm = (lines(workload, "--model", model, "--workers", "2", "--start", start, *args,
                                        variants=(642, 641))
                                  for start in ("cold", "warm"))
                    for line in cold:
                        self.assertGreater(line["extra"]["ceiling_setup_ns"], 0)
                    for line in warm:
                        self.assertNotIn("ceiling_setup_ns", line["extra"])

    def test_sdes_key_variants_give_each_keys_ciphertext(self):
        path = write(FOX * 50)
        for model in ("seq", "threads", "processes"):
            for cipher in sdes_ecb.CIPHERS:
                with self.subTest(model=model, cipher=cipher):
                    extra_args = ["--workers", "2"] if model != "seq" else []
                    out = lines("sdes-ecb", "--model", model, "--input", path, "--cipher", cipher,
                                "--chunk", "333", *extra_args, variants=(642, 1023, 0))
                    wanted = [hashlib.sha256((FOX * 50).translate(sdes_ecb.table_for_key(key))).hexdigest()
                              for key in (642, 1023, 0)]
                    self.assertEqual([line["checksum"] for line in out], wanted)
                    self.assertTrue(all(line["extra"]["kernel"] == "portable" for line in out))
                    if model != "seq":
                        busy = out[-1]["extra"]["busy"]
                        self.assertEqual(sorted(worker for worker, _, _ in busy), [0, 1])
                        self.assertTrue(all(0 <= start <= end <= out[-1]["ns"] for _, start, end in busy))

    def test_keygen_seed_variants_and_probes_through_the_command_line(self):
        out = lines("keygen", "--model", "processes", "--count", "3", "--bytes", "10", "--source", "seeded",
                    "--seed", "99", "--workers", "2", "--probes", "0,1,2",
                    variants=(5, 1))
        self.assertEqual(out[1]["checksum"], "d3605c1b2c10e632")   # the variant (1) replaces --seed 99
        self.assertEqual(out[1]["extra"]["probes"], ["yfoafcpmfufjcz7m", "m7wi4znbrxv34xsv", "lzktf67oukj7qc6j"])

    def test_only_the_portable_kernel_exists(self):
        # Python has no engineered kernel: --kernel tuned exits 2 and --list offers portable only,
        # so there is no tuned output to compare with the portable one.
        listing = json.loads(subprocess.run([RUN, "--list"], capture_output=True, text=True).stdout)
        for workload in ("sdes-ecb", "keygen", "batch-job"):
            self.assertEqual(list(listing["workloads"][workload]["kernels"]), ["portable"])
        done = subprocess.run([RUN, "keygen", "--model", "seq", "--kernel", "tuned"], capture_output=True, text=True)
        self.assertEqual(done.returncode, 2)
        self.assertIn("valid: portable", done.stderr)


if __name__ == "__main__":
    unittest.main()
