package parbench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
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

    private static java.io.BufferedReader stdin(String text) {
        return new java.io.BufferedReader(new java.io.StringReader(text));
    }

    @Test
    void variantsAreReadOnePerLineAsTheRepetitionsComeDue() throws Exception {
        java.io.BufferedReader lines = stdin("0\n1000\n4294967295\n18446744073709551615\n");
        assertEquals(0L, Protocol.readVariant(lines, 0));
        assertEquals(1000L, Protocol.readVariant(lines, 1));
        assertEquals(4294967295L, Protocol.readVariant(lines, 2));
        // keygen's seeds take all 64 bits: 2^64 - 1 is the long whose bits are all ones.
        assertEquals(-1L, Protocol.readVariant(lines, 3));
    }

    @Test
    void endOfStdinWhereAVariantIsDueEndsTheRepetitions() throws Exception {
        // Protocol 4: the launcher closes stdin when it wants no more, before the first variant too.
        assertNull(Protocol.readVariant(stdin(""), 0));
        java.io.BufferedReader lines = stdin("5\n");
        assertEquals(5L, Protocol.readVariant(lines, 0));
        assertNull(Protocol.readVariant(lines, 1));
    }

    @Test
    void aVariantMustBeANonNegativeDecimalInteger() {
        for (String bad : List.of("-2\n", "+2\n", "0x10\n", "\n", "1,2\n", "18446744073709551616\n")) {
            assertThrows(Protocol.BadArguments.class, () -> Protocol.readVariant(stdin(bad), 0), bad);
        }
    }

    @Test
    void theReadyLineSaysTheModeAndWarmsStartNs() {
        assertEquals("{\"ready\":\"cold\"}", Protocol.readyLine("cold", 0, Map.of()));
        assertEquals("{\"ready\":\"none\"}", Protocol.readyLine("none", 0, Map.of()));
        assertEquals("{\"ready\":\"warm\",\"start_ns\":1234567,\"extra\":{\"workers\":16}}",
                Protocol.readyLine("warm", 1234567, Map.of("workers", 16)));
    }

    @Test
    void theDefaultStartIsColdWhereOfferedElseTheOnlyMode() {
        Protocol.Args none = Protocol.Args.parse(List.of());
        assertEquals("cold", Protocol.Starts.coldOrWarm("a", "b").choose(none, "m"));
        assertEquals("warm", Protocol.Starts.warmOnly("a", "why").choose(none, "m"));
        assertEquals("none", Protocol.Starts.neither("why", "why").choose(none, "m"));
        assertEquals("none", Protocol.Starts.NONE.choose(none, "m"));
    }

    @Test
    void aStartModeTheModelCannotRunIsABadArgumentWithItsReason() {
        Protocol.Args cold = Protocol.Args.parse(List.of("--start", "cold"));
        Protocol.BadArguments refused = assertThrows(Protocol.BadArguments.class,
                () -> Protocol.Starts.warmOnly("carriers", "the carriers outlive it").choose(cold, "m"));
        org.junit.jupiter.api.Assertions.assertTrue(refused.getMessage().contains("the carriers outlive it"));
        assertThrows(Protocol.BadArguments.class, () -> Protocol.Starts.neither("x", "y").choose(cold, "m"));
        assertThrows(Protocol.BadArguments.class, () -> Protocol.Starts.coldOrWarm("a", "b")
                .choose(Protocol.Args.parse(List.of("--start", "lukewarm")), "m"));
        assertEquals("warm", Protocol.Starts.coldOrWarm("a", "b")
                .choose(Protocol.Args.parse(List.of("--start", "warm")), "m"));
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
