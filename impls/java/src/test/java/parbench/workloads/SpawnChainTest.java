package parbench.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import parbench.Protocol;
import parbench.Workload;

/** spawn-chain's spec: the answer is n, whatever kind of thread makes the links, and every link has ended. */
class SpawnChainTest {
    @ParameterizedTest(name = "n {0}")
    @ValueSource(ints = {1, 2, 777, 20_000})
    void virtualThreadChainAnswersN(int n) throws Exception {
        assertEquals(n, SpawnChain.passThroughChain(n, Thread.ofVirtual().factory()));
    }

    // Kept small: a platform thread is an OS thread, and the test machine's pid space is shared.
    @ParameterizedTest(name = "n {0}")
    @ValueSource(ints = {1, 2, 50})
    void platformThreadChainAnswersN(int n) throws Exception {
        assertEquals(n, SpawnChain.passThroughChain(n, Thread.ofPlatform().daemon(true).factory()));
    }

    /** A factory that remembers what it made, to look at the links after the chain returns. */
    private static ThreadFactory remembering(ThreadFactory factory, List<Thread> made) {
        return task -> {
            Thread thread = factory.newThread(task);
            made.add(thread);
            return thread;
        };
    }

    @Test
    void everyLinkHasEndedWhenTheChainReturns() throws Exception {
        for (ThreadFactory kind : List.of(Thread.ofVirtual().factory(), Thread.ofPlatform().daemon(true).factory())) {
            List<Thread> links = new CopyOnWriteArrayList<>();
            SpawnChain.passThroughChain(40, remembering(kind, links));
            assertEquals(40, links.size());
            for (Thread link : links) {
                assertFalse(link.isAlive(), link.toString());
            }
        }
    }

    @Test
    void theHandOffCeilingEndsBothUnits() throws Exception {
        List<Thread> units = new CopyOnWriteArrayList<>();
        assertTrue(SpawnChain.handOffNs(1001, remembering(Thread.ofVirtual().factory(), units)) > 0);
        assertEquals(2, units.size());
        units.forEach(unit -> assertFalse(unit.isAlive(), unit.toString()));
    }

    @Test
    void everyModelReportsTheHandOffCeiling() throws Exception {
        for (String model : List.of("virtual-threads", "platform-threads")) {
            Protocol.Repetition repetition = new SpawnChain()
                    .prepare(model, Protocol.Args.parse(List.of("--n", "30")), 2).run();
            Map<String, Object> extra = repetition.extra();
            assertEquals("30", repetition.checksum(), model);
            assertEquals("hand-off", extra.get("ceiling"), model);
            assertTrue((Long) extra.get("ceiling_ns") > 0, model);
        }
    }

    // Protocol 2: the start value s goes in instead of 0, so the answer is s + n.
    @Test
    void n1000FromStart123456Answers124456() throws Exception {
        for (ThreadFactory kind : List.of(Thread.ofVirtual().factory(), Thread.ofPlatform().daemon(true).factory())) {
            assertEquals(124456L, SpawnChain.passThroughChain(1000, 123456, kind, null).answer());
        }
    }

    @Test
    void aStartValueNearTheTopOfItsRangeDoesNotOverflow() throws Exception {
        assertEquals(2147483647L + 300, SpawnChain.passThroughChain(300, 2147483647L, Thread.ofVirtual().factory(),
                null).answer());
    }

    @Test
    void aTrueChainCountsEveryLinkLiveWhenTheStartValueIsSent() throws Exception {
        for (ThreadFactory kind : List.of(Thread.ofVirtual().factory(), Thread.ofPlatform().daemon(true).factory())) {
            assertEquals(40, SpawnChain.passThroughChain(40, 0, kind, null).liveUnits());
        }
    }

    @Test
    void eachRepetitionUsesItsVariantAndReportsLiveUnitsAndBusy() throws Exception {
        Workload.PreparedCase prepared = new SpawnChain()
                .prepare("virtual-threads", Protocol.Args.parse(List.of("--n", "500")), 2);
        for (long start : new long[] {0, 5, 123456, 99}) {
            Protocol.Repetition repetition = Protocol.runRepetition(prepared::run, start);
            assertEquals(Long.toString(start + 500), repetition.checksum());
            assertEquals(500, repetition.extra().get("live_units"));
            List<?> busy = (List<?>) repetition.extra().get("busy");
            assertFalse(busy.isEmpty());
        }
    }
}
