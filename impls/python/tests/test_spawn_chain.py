"""spawn-chain (workloads/spawn-chain.md): every model passes the integer through n units and answers n."""
import unittest

from parbench_py.workloads import spawn_chain
from tests.helpers import run_model


class SpawnChain(unittest.TestCase):
    def test_every_model_answers_n(self):
        for n in (1, 2, 17, 500):
            for model in spawn_chain.WORKLOAD.models:
                with self.subTest(n=n, model=model):
                    self.assertEqual(run_model(spawn_chain.WORKLOAD, model, {"n": n})[:2], (n, str(n)))

    def test_zero_units_answer_zero(self):
        self.assertEqual(run_model(spawn_chain.WORKLOAD, "asyncio", {"n": 0})[1], "0")


if __name__ == "__main__":
    unittest.main()
