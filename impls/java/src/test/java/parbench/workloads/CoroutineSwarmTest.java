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
import parbench.Workload;

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
        assertEquals(parbench.Digest.fnv1a64("0:0:FizzBuzz"), CoroutineSwarm.lineHash(0, 0));
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

    // Protocol 2's vectors: tasks 3, steps 10, task t's lines made with the id t + salt.
    @ParameterizedTest(name = "salt {0}")
    @CsvSource({"0, 1161d008ce58dc37", "1000, bb33744708f665dd", "4294967295, 2540eadf7cfb00ad"})
    void saltedTasks3Steps10(long salt, String digest) throws Exception {
        assertEquals(digest, CoroutineSwarm.sequential(3, 10, salt).checksum());
        assertEquals(digest, CoroutineSwarm.swarm(3, 10, 0, salt, Thread.ofVirtual(), null).checksum());
        assertEquals(digest, CoroutineSwarm.swarm(3, 10, 0, salt, Thread.ofPlatform().daemon(true), null).checksum());
    }

    @Test
    void seqCountsTasksMinusOneSwitches() {
        assertEquals(49, CoroutineSwarm.sequential(50, 10, 0).switches());
    }

    @Test
    void eachRepetitionUsesItsSaltAndCountsSwitches() throws Exception {
        Workload.PreparedCase prepared = new CoroutineSwarm().prepare("virtual-threads", Protocol.Args.parse(List.of(
                "--tasks", "3", "--steps", "10", "--sleep-ms", "0")), 2);
        Protocol.Repetition repetition = Protocol.runRepetition(prepared::run, 1000L);
        assertEquals("bb33744708f665dd", repetition.checksum());
        // Every switch is a pass from one task to another; at most one per step after the first.
        long switches = (Long) repetition.extra().get("switches");
        assertTrue(switches >= 0 && switches <= 29, String.valueOf(switches));
        assertFalse(((List<?>) repetition.extra().get("busy")).isEmpty());
    }

    /** Tasks that sleep between steps all wait at once, so their steps interleave. */
    @Test
    void sleepingTasksInterleave() throws Exception {
        long switches = CoroutineSwarm.swarm(20, 3, 5, 0, Thread.ofVirtual(), null).switches();
        assertTrue(switches > 19, String.valueOf(switches));
    }

    /**
     * Protocol 4: 40 tasks x 5 steps under salt 3 draw 200 tickets; the probes are every
     * 40 / 16 = 2nd task from (-3) mod 2 = 1; some probe drew a ticket inside another's life.
     */
    @ParameterizedTest
    @CsvSource({"true", "false"})
    void theSaltsProbeTasksDrewInterleavedTickets(boolean virtual) throws Exception {
        Thread.Builder builder = virtual ? Thread.ofVirtual() : Thread.ofPlatform().daemon(true);
        CoroutineSwarm.SwarmResult result = CoroutineSwarm.swarm(40, 5, 0, 3, builder, null);
        assertEquals(200, result.tickets());
        List<List<Long>> probes = new java.util.ArrayList<>(result.ticketProbes());
        probes.sort(java.util.Comparator.comparing((List<Long> probe) -> probe.get(1)));
        assertEquals(java.util.stream.LongStream.iterate(1, t -> t < 40, t -> t + 2).boxed().toList(),
                probes.stream().map(probe -> probe.get(0)).sorted().toList());
        boolean overlap = false;
        for (int i = 1; i < probes.size(); i++) {
            overlap |= probes.get(i).get(1) < probes.get(i - 1).get(2);
        }
        assertTrue(overlap, probes.toString());
    }
}
