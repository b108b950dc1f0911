"""coroutine-swarm (workloads/coroutine-swarm.md): FizzBuzz lines, the test vector, and agreement of every model."""
import unittest

from parbench_py.digest import fnv1a64
from parbench_py.workloads import coroutine_swarm
from tests.helpers import run_model


class FizzBuzz(unittest.TestCase):
    def test_rules(self):
        self.assertEqual([coroutine_swarm.fizzbuzz(i) for i in (0, 1, 3, 5, 9, 10, 15, 16)],
                         ["FizzBuzz", "1", "Fizz", "Buzz", "Fizz", "Buzz", "FizzBuzz", "16"])

    def test_task_0_step_0_is_0_0_fizzbuzz(self):
        self.assertEqual(coroutine_swarm.line_hash(0, 0), fnv1a64(b"0:0:FizzBuzz"))


class CoroutineSwarm(unittest.TestCase):
    def test_tasks_3_steps_10(self):
        for model in coroutine_swarm.WORKLOAD.models:
            with self.subTest(model=model):
                self.assertEqual(run_model(coroutine_swarm.WORKLOAD, model, {"tasks": 3, "steps": 10})[1],
                                 "1161d008ce58dc37")

    def test_every_model_agrees_for_arbitrary_parameters(self):
        for tasks, steps, sleep_ms in ((17, 7, 0), (250, 3, 0), (5, 2, 1), (1, 0, 0)):
            params = {"tasks": tasks, "steps": steps, "sleep_ms": sleep_ms}
            results = {model: run_model(coroutine_swarm.WORKLOAD, model, params)[:2]
                       for model in coroutine_swarm.WORKLOAD.models}
            with self.subTest(params=params):
                self.assertEqual(len(set(results.values())), 1, results)

    def test_async_models_report_spawn_ns(self):
        for model in set(coroutine_swarm.WORKLOAD.models) - {"seq"}:
            with self.subTest(model=model):
                self.assertGreater(run_model(coroutine_swarm.WORKLOAD, model, {"tasks": 10})[2]["spawn_ns"], 0)

    def test_tasks_that_take_turns_draw_interleaved_tickets(self):
        """asyncio's ready queue is FIFO: task t's step s draws ticket s·tasks + t, and the salt
        picks the probe tasks (every 40 // 16 = 2nd task from (−salt) mod 2)."""
        for model in set(coroutine_swarm.WORKLOAD.models) - {"seq"}:
            with self.subTest(model=model):
                extra = run_model(coroutine_swarm.WORKLOAD, model, {"tasks": 40, "steps": 5, "salt": 3})[2]
                self.assertEqual(extra["tickets"], 200)
                self.assertEqual(sorted(extra["ticket_probes"]), [[t, t, 160 + t] for t in range(1, 40, 2)])


if __name__ == "__main__":
    unittest.main()
