"""sdes-ecb (workloads/sdes-ecb.md): subkeys, block vectors, the key-642 table, and agreement of every model."""
import hashlib
import os
import tempfile
import unittest

from parbench_py.workloads import sdes_ecb
from tests.helpers import in_process_models, run_model

KEY_642_TABLE = (
    "ce81add08bc4ec95747b43b631dec213f7104b9b52550e3eae9e20f5eb3b65b062290578e368401ddc932b5eb9366efb"
    "1fb82373badda2d602768c7d83d3cd18fa1519445f507c01e0af17c6a5eab247a3849f4f22c13a0a9aaab4613feff124"
    "129d91e8b7f8d4a94cc7ff6a0d465a2fcb2877278e69d2a672061cc9d78779886ce70b962d664e3332bd25f097d860b5"
    "5156ed5d14f3ac380c9882534dfd03f6c08f637e85cae2dbda358d587f70cc3dd9be45d5bc1b0090a0302ebbe5756b1e"
    "fcb3dfe699167a674209b164c348f421c52659e980a73ca89c08f207f9495786545b374a11fe920feea139c8abe45c89"
    "6d8ad1412ccf940434a41a6f71e1bf2a")
FOX = b"The quick brown fox jumps over the lazy dog\n"
SEED_ARTICLE_TEXT = "1234567890\nhogehoge\n私の名前はmorimorikochanです\nDiggy-mo!!!\n".encode()


def encrypt(key: str, plain: str) -> str:
    """The reference procedure's encrypt_byte (the portable kernel) on the spec's bit strings."""
    k1, k2 = sdes_ecb.subkeys(int(key, 2))
    return f"{sdes_ecb.encrypt_byte(k1, k2, int(plain, 2)):08b}"


class SdesBlock(unittest.TestCase):
    def test_key_1010000010_gives_k1_10100100_and_k2_01000011(self):
        self.assertEqual(sdes_ecb.subkeys(0b1010000010), (0b10100100, 0b01000011))

    def test_block_vectors(self):
        vectors = [("0000000000", "10101010", "00010001"), ("1110001110", "10101010", "11001010"),
                   ("1110001110", "01010101", "01110000"), ("1111111111", "10101010", "00000100"),
                   ("1010000010", "10010111", "00111000"), ("1010000010", "00000011", "11010000")]
        for key, plain, cipher in vectors:
            with self.subTest(key=key, plain=plain):
                self.assertEqual(encrypt(key, plain), cipher)

    def test_table_of_key_642(self):
        self.assertEqual(sdes_ecb.table_for_key(642).hex(), KEY_642_TABLE)

    def test_quick_brown_fox_under_key_642(self):
        digest = hashlib.sha256(sdes_ecb.encrypt_bitwise(FOX, 642)).hexdigest()
        self.assertEqual(digest, "914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf")

    def test_bitwise_and_table_ciphers_agree_for_every_byte_and_some_keys(self):
        every_byte = bytes(range(256))
        for key in (0, 1, 642, 0b1110001110, 1023, 517):
            with self.subTest(key=key):
                self.assertEqual(sdes_ecb.encrypt_bitwise(every_byte, key), sdes_ecb.encrypt_table(every_byte, key))


class SdesEcbModels(unittest.TestCase):
    def setUp(self):
        folder = tempfile.mkdtemp(prefix="parbench-py-test-")
        self.paths = {}
        for name, data in (("fox", FOX), ("article", SEED_ARTICLE_TEXT), ("random", os.urandom(3001)),
                           ("empty", b"")):
            self.paths[name] = os.path.join(folder, name)
            with open(self.paths[name], "wb") as file:
                file.write(data)

    def test_every_model_and_cipher_agree_for_arbitrary_inputs_keys_and_chunks(self):
        for name, path in self.paths.items():
            for key, chunk in ((642, 0), (917, 7), (3, 1000)):
                with open(path, "rb") as file:
                    expected = hashlib.sha256(sdes_ecb.encrypt_table(file.read(), key)).hexdigest()
                for model in in_process_models(sdes_ecb.WORKLOAD):
                    for cipher in sdes_ecb.CIPHERS:
                        with self.subTest(input=name, key=key, chunk=chunk, model=model, cipher=cipher):
                            _, checksum, _ = run_model(sdes_ecb.WORKLOAD, model, {
                                "input": path, "key": key, "cipher": cipher, "chunk": chunk})
                            self.assertEqual(checksum, expected)

    def test_processes_records_its_default_chunk(self):
        _, _, extra = run_model(sdes_ecb.WORKLOAD, "processes", {"input": self.paths["random"], "cipher": "table"})
        self.assertEqual(extra["chunk"], 1501)


if __name__ == "__main__":
    unittest.main()
