"""keygen (workloads/keygen.md): Base32 vectors, the seeded vector, and agreement of every model."""
import unittest

from parbench_py.workloads import keygen
from tests.helpers import in_process_models, run_model


class Base32LowerWithPadding(unittest.TestCase):
    def test_rfc4648_vectors(self):
        vectors = {b"": b"", b"f": b"my======", b"fo": b"mzxq====", b"foo": b"mzxw6===",
                   b"foob": b"mzxw6yq=", b"fooba": b"mzxw6ytb", b"foobar": b"mzxw6ytboi======"}
        for plain, encoded in vectors.items():
            with self.subTest(plain=plain):
                self.assertEqual(keygen.base32_lower(plain), encoded)

    def test_1000_bytes_give_1600_characters_without_padding(self):
        encoded = keygen.base32_lower(bytes(1000))
        self.assertEqual(len(encoded), 1600)
        self.assertNotIn(b"=", encoded)


class Keygen(unittest.TestCase):
    def test_seeded_count_3_bytes_10_seed_1(self):
        _, checksum, _ = run_model(keygen.WORKLOAD, "seq", {"count": 3, "bytes": 10, "source": "seeded", "seed": 1})
        self.assertEqual(checksum, "d3605c1b2c10e632")

    def test_strong_checksum_is_the_order_free_digest_of_its_keys(self):
        # Protocol 2: both sources print the digest; strong keys differ, so two runs differ.
        items, checksum, extra = run_model(keygen.WORKLOAD, "seq", {"count": 5, "bytes": 1000, "source": "strong",
                                                                    "probes": (0, 4)})
        self.assertEqual(items, 5)
        self.assertRegex(checksum, r"^[0-9a-f]{16}$")
        self.assertTrue(all(len(key) == 1600 for key in extra["probes"]))
        self.assertNotEqual(checksum, run_model(keygen.WORKLOAD, "seq", {"count": 5, "bytes": 1000})[1])

    def test_strong_keys_differ(self):
        keys = keygen.make_keys(0, 50, 16, "strong", 0)
        self.assertEqual(len(set(keys)), 50)

    def test_every_model_agrees_for_arbitrary_parameters(self):
        for count, key_bytes, seed in ((37, 13, 99), (5, 1000, 2**63 + 5), (1, 1, 0)):
            params = {"count": count, "bytes": key_bytes, "source": "seeded", "seed": seed}
            results = {model: run_model(keygen.WORKLOAD, model, params, workers=3)[:2]
                       for model in in_process_models(keygen.WORKLOAD)}
            with self.subTest(params=params):
                self.assertEqual(len(set(results.values())), 1, results)

    def test_every_model_makes_count_strong_keys(self):
        for model in in_process_models(keygen.WORKLOAD):
            with self.subTest(model=model):
                items, checksum, _ = run_model(keygen.WORKLOAD, model, {"count": 11, "bytes": 7})
                self.assertEqual(items, 11)
                self.assertRegex(checksum, r"^[0-9a-f]{16}$")


if __name__ == "__main__":
    unittest.main()
