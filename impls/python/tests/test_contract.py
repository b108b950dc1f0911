"""The timed-region contract (docs/workloads/README.md): one chunking rule, what really ran, ceilings, joined units."""
import hashlib
import os
import pathlib
import tempfile
import threading
import unittest

from parbench_py import parallel
from parbench_py.workloads import coroutine_swarm, keygen, sdes_ecb, spawn_chain
from tests.helpers import in_process_models, run_model

MIB = 1 << 20


class ChunkingRule(unittest.TestCase):
    def test_total_3_workers_2_gives_chunk_2_and_2_chunks(self):
        chunk = parallel.default_chunk(3, 2, parallel.SDES_CHUNK_CAP)
        self.assertEqual((chunk, parallel.chunk_spans(3, chunk)), (2, [(0, 2), (2, 3)]))

    def test_10_mib_over_2_workers_is_capped_at_1_mib_in_10_chunks(self):
        chunk = parallel.default_chunk(10 * MIB, 2, parallel.SDES_CHUNK_CAP)
        self.assertEqual((chunk, len(parallel.chunk_spans(10 * MIB, chunk))), (MIB, 10))

    def test_keygen_cap_is_1024_keys(self):
        self.assertEqual(parallel.default_chunk(2000, 2, parallel.KEYGEN_CHUNK_CAP), 1000)
        self.assertEqual(parallel.default_chunk(100_000, 2, parallel.KEYGEN_CHUNK_CAP), 1024)

    def test_an_empty_input_has_no_chunks(self):
        self.assertEqual(parallel.chunk_spans(0, parallel.default_chunk(0, 4, 1024)), [])

    def test_chunk_spans_cover_every_unit_once(self):
        spans = parallel.chunk_spans(1001, 97)
        self.assertEqual([unit for start, stop in spans for unit in range(start, stop)], list(range(1001)))


def write_input(size: int) -> str:
    path = os.path.join(tempfile.mkdtemp(prefix="parbench-py-contract-"), "input")
    with open(path, "wb") as file:
        file.write(os.urandom(size))
    return path


class WhatReallyRan(unittest.TestCase):
    def test_sdes_reports_the_rule_chunk_and_every_worker(self):
        path = write_input(3001)
        for model in ("threads", "processes"):
            with self.subTest(model=model):
                _, _, extra = run_model(sdes_ecb.WORKLOAD, model, {"input": path, "cipher": "table"}, workers=2)
                self.assertEqual((extra["chunk"], extra["chunks"], extra["workers_used"]), (1501, 2, 2))

    def test_sdes_chunk_override_is_used_and_recorded(self):
        _, _, extra = run_model(sdes_ecb.WORKLOAD, "threads", {"input": write_input(1000), "cipher": "table",
                                                                "chunk": 300}, workers=3)
        self.assertEqual((extra["chunk"], extra["chunks"], extra["workers_used"]), (300, 4, 3))

    def test_keygen_reports_the_rule_chunk_and_every_worker(self):
        for model in ("threads", "processes"):
            with self.subTest(model=model):
                _, _, extra = run_model(keygen.WORKLOAD, model, {"count": 2000, "bytes": 8}, workers=2)
                self.assertEqual((extra["chunk"], extra["chunks"], extra["workers_used"]), (1000, 2, 2))

    def test_keygen_chunk_override(self):
        params = {"count": 10, "bytes": 5, "chunk": 3, "source": "seeded", "seed": 4}
        items, checksum, extra = run_model(keygen.WORKLOAD, "processes", params, workers=2)
        self.assertEqual((items, checksum, extra["chunk"], extra["chunks"], extra["workers_used"]),
                         (10, run_model(keygen.WORKLOAD, "seq", params)[1], 3, 4, 2))

    def test_every_worker_gets_a_chunk_even_when_the_work_is_tiny(self):
        # One byte per chunk: without the first-round barrier one thread could take all of them.
        for _ in range(5):
            _, _, extra = run_model(sdes_ecb.WORKLOAD, "threads", {"input": write_input(8), "cipher": "table",
                                                                    "chunk": 1}, workers=4)
            self.assertEqual(extra["workers_used"], 4)

    def test_fewer_chunks_than_workers_use_as_many_workers_as_chunks(self):
        _, _, extra = run_model(sdes_ecb.WORKLOAD, "processes", {"input": write_input(2), "cipher": "table"},
                                workers=3)
        self.assertEqual((extra["chunks"], extra["workers_used"]), (2, 2))


class Ceilings(unittest.TestCase):
    def test_sdes_every_model_reports_the_copy(self):
        path = write_input(5000)
        for model in in_process_models(sdes_ecb.WORKLOAD):
            with self.subTest(model=model):
                _, _, extra = run_model(sdes_ecb.WORKLOAD, model, {"input": path, "cipher": "table"})
                self.assertEqual(extra["ceiling"], "copy")
                self.assertGreater(extra["ceiling_ns"], 0)

    def test_the_copy_runs_after_the_checksum(self):
        # The copy overwrites the output buffer with the plaintext: a checksum taken after it would be the plaintext's.
        path = write_input(4096)
        plain = pathlib.Path(path).read_bytes()
        _, checksum, _ = run_model(sdes_ecb.WORKLOAD, "processes", {"input": path, "cipher": "table"})
        self.assertEqual(checksum, hashlib.sha256(sdes_ecb.encrypt_table(plain, 642)).hexdigest())

    def test_keygen_every_model_reports_csprng_plus_base32(self):
        for model in in_process_models(keygen.WORKLOAD):
            with self.subTest(model=model):
                _, _, extra = run_model(keygen.WORKLOAD, model, {"count": 50, "bytes": 100})
                self.assertEqual(extra["ceiling"], "csprng+base32")
                self.assertGreater(extra["csprng_ns"], 0)
                self.assertGreater(extra["base32_ns"], 0)
                self.assertEqual(extra["ceiling_ns"], extra["csprng_ns"] + extra["base32_ns"])

    def test_spawn_chain_every_model_reports_the_hand_off(self):
        for model in spawn_chain.WORKLOAD.models:
            with self.subTest(model=model):
                _, _, extra = run_model(spawn_chain.WORKLOAD, model, {"n": 200})
                self.assertEqual(extra["ceiling"], "hand-off")
                self.assertGreater(extra["ceiling_ns"], 0)

    def test_coroutine_swarm_reports_yield_only_for_bare_yields(self):
        for model in set(coroutine_swarm.WORKLOAD.models) - {"seq"}:
            with self.subTest(model=model):
                bare = run_model(coroutine_swarm.WORKLOAD, model, {"tasks": 20, "steps": 3})[2]
                sleeping = run_model(coroutine_swarm.WORKLOAD, model, {"tasks": 2, "steps": 1, "sleep_ms": 1})[2]
                self.assertEqual(bare["ceiling"], "yield")
                self.assertGreater(bare["ceiling_ns"], 0)
                self.assertNotIn("ceiling", sleeping)


class UnitsEnded(unittest.TestCase):
    def test_thread_chain_joins_every_link_before_it_answers(self):
        before = threading.active_count()
        self.assertEqual(spawn_chain.thread_chain(300), (300, 300))   # (answer, live units)
        self.assertEqual(threading.active_count(), before)

    def test_thread_hand_off_ends_both_players(self):
        before = threading.active_count()
        self.assertGreater(spawn_chain.thread_hand_off_ns(100), 0)
        self.assertEqual(threading.active_count(), before)


if __name__ == "__main__":
    unittest.main()
