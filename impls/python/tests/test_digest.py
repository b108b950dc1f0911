"""The shared helpers of workloads/README.md against its vectors."""
import unittest

from parbench_py.digest import fnv1a64, order_free_digest, splitmix64_bytes


class SharedHelpers(unittest.TestCase):
    def test_fnv1a64_of_empty_string(self):
        self.assertEqual(fnv1a64(b""), 0xCBF29CE484222325)

    def test_fnv1a64_of_a(self):
        self.assertEqual(fnv1a64(b"a"), 0xAF63DC4C8601EC8C)

    def test_order_free_digest_ignores_order(self):
        self.assertEqual(order_free_digest([b"x", b"yz", b""]), order_free_digest([b"", b"yz", b"x"]))

    def test_order_free_digest_is_sum_mod_2_64_as_16_hex_digits(self):
        expected = (fnv1a64(b"a") + fnv1a64(b"b")) % 2**64
        self.assertEqual(order_free_digest([b"a", b"b"]), f"{expected:016x}")

    def test_splitmix64_bytes_seed_1_index_0_16_bytes(self):
        self.assertEqual(splitmix64_bytes(1, 0, 16).hex(), "c15c0289ec2d0a9167ec8e65a18debbe")

    def test_splitmix64_bytes_truncates_to_n(self):
        self.assertEqual(splitmix64_bytes(1, 0, 5), splitmix64_bytes(1, 0, 16)[:5])


if __name__ == "__main__":
    unittest.main()
