package parbench.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import parbench.Protocol;

/** coroutine-swarm's spec: FizzBuzz, the test vector, and every model (yielding or sleeping) agreeing. */
class CoroutineSwarmTest {
    @Test
    void fizzbuzzRules() {
        assertEquals("FizzBuzz", CoroutineSwarm.fizzbuzz(0));
        assertEquals("1", CoroutineSwarm.fizzbuzz(1));
        assertEquals("Fizz", CoroutineSwarm.fizzbuzz(3));
        assertEquals("Buzz", CoroutineSwarm.fizzbuzz(5));
        assertEquals("FizzBuzz", CoroutineSwarm.fizzbuzz(15));
        assertEquals("14", CoroutineSwarm.fizzbuzz(14));
    }

    @Test
    void tasks3Steps10() {
        assertEquals("1161d008ce58dc37", CoroutineSwarm.sequential(3, 10));
    }

    @Test
    void task0Step0IsTheLine0Colon0ColonFizzBuzz() {
        assertEquals(parbench.Checksums.fnv1a64("0:0:FizzBuzz"), CoroutineSwarm.lineHash(0, 0));
    }

    @ParameterizedTest(name = "tasks {0}, steps {1}, sleep {2} ms")
    @CsvSource({"301, 7, 0", "3, 10, 0", "1000, 3, 0", "50, 2, 1", "1, 0, 0"})
    void virtualThreadsAgreeWithSeq(int tasks, int steps, int sleepMs) throws Exception {
        assertEquals(CoroutineSwarm.sequential(tasks, steps),
                CoroutineSwarm.swarm(tasks, steps, sleepMs, Thread.ofVirtual()).checksum());
    }

    // Kept small: a platform thread is an OS thread, and the test machine's pid space is shared.
    @ParameterizedTest(name = "tasks {0}, steps {1}, sleep {2} ms")
    @CsvSource({"37, 7, 0", "3, 10, 0", "20, 2, 1"})
    void platformThreadsAgreeWithSeq(int tasks, int steps, int sleepMs) throws Exception {
        assertEquals(CoroutineSwarm.sequential(tasks, steps),
                CoroutineSwarm.swarm(tasks, steps, sleepMs, Thread.ofPlatform().daemon(true)).checksum());
    }

    @Test
    void yieldingModelsReportTheYieldCeilingAndSleepingOnesDoNot() throws Exception {
        for (String model : List.of("virtual-threads", "platform-threads")) {
            Map<String, Object> yielding = run(model, 0);
            assertEquals("yield", yielding.get("ceiling"), model);
            assertTrue((Long) yielding.get("ceiling_ns") > 0, model);
            assertFalse(run(model, 1).containsKey("ceiling"), model);
        }
    }

    private static Map<String, Object> run(String model, int sleepMs) throws Exception {
        return new CoroutineSwarm().prepare(model, Protocol.Args.parse(List.of(
                "--tasks", "20", "--steps", "3", "--sleep-ms", String.valueOf(sleepMs))), 2).run().extra();
    }
}
