package parbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The protocol helper: argument errors are exit-2 errors, and result lines have the protocol's shape. */
class ProtocolTest {
    @Test
    void aResultLineHasRepNsItemsChecksumAndExtra() {
        Map<String, Object> extra = new LinkedHashMap<>();
        extra.put("workers", 2);
        String line = Protocol.repetitionLine(0, new Protocol.Repetition(337167000L, 100000, "100000"), extra);
        assertEquals("{\"rep\":0,\"ns\":337167000,\"items\":100000,\"checksum\":\"100000\",\"extra\":{\"workers\":2}}",
                line);
    }

    @Test
    void aLimitLineCarriesTheRuntimesMessage() {
        assertEquals("{\"error\":\"limit\",\"detail\":\"unable to create \\\"native\\\" thread\"}",
                Protocol.limitLine("unable to create \"native\" thread"));
    }

    @Test
    void unknownParametersAreRejected() {
        Protocol.Args args = Protocol.Args.parse(List.of("--count", "3", "--cont", "4"));
        assertThrows(Protocol.BadArguments.class, () -> args.allowOnly(Set.of("count"), "keygen"));
    }

    @Test
    void aNumberMustBeAnInteger() {
        Protocol.Args args = Protocol.Args.parse(List.of("--count", "many"));
        assertThrows(Protocol.BadArguments.class, () -> args.count("count", 1));
    }

    @Test
    void keysMayBeWrittenInBinary() {
        assertEquals(642, Protocol.Args.parse(List.of("--key", "0b1010000010")).number("key"));
    }

    @Test
    void aFlagWithoutAValueIsRejected() {
        assertThrows(Protocol.BadArguments.class, () -> Protocol.Args.parse(List.of("--count")));
    }

    @Test
    void aWarmUpLineHasWarmupInsteadOfRep() {
        String line = Protocol.warmupLine(1, new Protocol.Repetition(5L, 0, "noop"), Map.of());
        assertEquals("{\"warmup\":1,\"ns\":5,\"items\":0,\"checksum\":\"noop\"}", line);
    }

    @Test
    void variantsAreOnePerRepetition() {
        Protocol.Args args = Protocol.Args.parse(List.of("--variants", "0,1000,4294967295"));
        assertEquals(List.of(0L, 1000L, 4294967295L),
                java.util.Arrays.stream(Protocol.variants(args, 3)).boxed().toList());
        assertThrows(Protocol.BadArguments.class, () -> Protocol.variants(args, 4));
        assertThrows(Protocol.BadArguments.class,
                () -> Protocol.variants(Protocol.Args.parse(List.of("--variants", "1,-2")), 2));
        assertEquals(null, Protocol.variants(Protocol.Args.parse(List.of()), 3));
    }

    @Test
    void aRepetitionWithoutVariantsUsesTheBaseValue() {
        assertEquals(642, new Protocol.Rep(null).variant(642));
        assertEquals(7, new Protocol.Rep(7L).variant(642));
    }

    @Test
    void everyLineCarriesTheTimedRegionsCpuAndPhases() throws Exception {
        Protocol.Repetition repetition = Protocol.runRepetition(rep -> {
            rep.start();
            // Spin until this thread itself has used 30 ms of CPU, however loaded the machine is.
            var threads = java.lang.management.ManagementFactory.getThreadMXBean();
            long spin = threads.getCurrentThreadCpuTime() + 30_000_000;
            while (threads.getCurrentThreadCpuTime() < spin) {
                Thread.onSpinWait();
            }
            long ns = rep.stop();
            rep.checksummed();
            rep.cleanup();
            return new Protocol.Repetition(ns, 0, "x");
        }, null);
        Map<String, Object> extra = repetition.extra();
        for (String field : List.of("cpu_user_ns", "cpu_sys_ns", "prepare_ns", "checksum_ns", "cleanup_ns")) {
            assertEquals(Long.class, extra.get(field).getClass(), field);
            org.junit.jupiter.api.Assertions.assertTrue((Long) extra.get(field) >= 0, field);
        }
        // 30 ms of spinning is CPU time of this process (getrusage counts in µs; ticks may lag a little).
        org.junit.jupiter.api.Assertions.assertTrue((Long) extra.get("cpu_user_ns") + (Long) extra.get("cpu_sys_ns")
                >= 20_000_000, extra.toString());
    }

    @Test
    void busyIntervalsRunFromEachWorkersFirstBeginToItsLastEnd() throws Exception {
        Protocol.Busy busy = new Protocol.Busy(3);
        long origin = System.nanoTime();
        busy.begin(0, "a");
        busy.begin(1, "b");
        busy.end(1);
        busy.begin(2, "a");
        busy.end(2);
        busy.end(0);
        List<List<Long>> intervals = busy.intervals(origin);
        assertEquals(2, intervals.size());
        assertEquals(2, busy.workersUsed());
        assertEquals(0L, intervals.get(0).get(0));
        assertEquals(1L, intervals.get(1).get(0));
        for (List<Long> interval : intervals) {
            org.junit.jupiter.api.Assertions.assertTrue(0 <= interval.get(1) && interval.get(1) <= interval.get(2));
        }
    }
}
