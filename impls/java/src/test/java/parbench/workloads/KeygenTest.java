package parbench.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import parbench.Chunking;
import parbench.Protocol;
import parbench.Workers;
import parbench.Workload;

/** keygen's spec: Base32 vectors, the seeded checksum, and every model agreeing. */
class KeygenTest {
    private static String base32(String text) {
        return Keygen.base32Lower(text.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void base32OfEmptyIsEmpty() {
        assertEquals("", base32(""));
    }

    @Test
    void base32OfF() {
        assertEquals("my======", base32("f"));
    }

    @Test
    void base32OfFo() {
        assertEquals("mzxq====", base32("fo"));
    }

    @Test
    void base32OfFoo() {
        assertEquals("mzxw6===", base32("foo"));
    }

    @Test
    void base32OfFoob() {
        assertEquals("mzxw6yq=", base32("foob"));
    }

    @Test
    void base32OfFooba() {
        assertEquals("mzxw6ytb", base32("fooba"));
    }

    @Test
    void base32OfFoobar() {
        assertEquals("mzxw6ytboi======", base32("foobar"));
    }

    /** RFC 4648 Base32 read straight off the spec: 5 bits at a time, then '=' to a multiple of 8. */
    private static String referenceBase32(byte[] data) {
        StringBuilder out = new StringBuilder();
        for (int bit = 0; bit < data.length * 8; bit += 5) {
            int value = 0;
            for (int k = bit; k < bit + 5; k++) {
                int b = k < data.length * 8 ? (data[k / 8] >>> (7 - k % 8)) & 1 : 0;
                value = value << 1 | b;
            }
            out.append("abcdefghijklmnopqrstuvwxyz234567".charAt(value));
        }
        while (out.length() % 8 != 0) {
            out.append('=');
        }
        return out.toString();
    }

    @ParameterizedTest(name = "vectors {0}")
    @ValueSource(booleans = {true, false})
    void theTunedEncoderAgreesWithTheSpecForEveryLengthUpTo200And1000(boolean vectors) {
        java.util.Random random = new java.util.Random(32);
        for (int length : lengths()) {
            byte[] data = new byte[length];
            random.nextBytes(data);
            assertEquals(referenceBase32(data), Keygen.base32Tuned(data, vectors), "length " + length);
        }
    }

    @Test
    void thePortableEncoderAgreesWithTheSpecForEveryLengthUpTo200And1000() {
        java.util.Random random = new java.util.Random(33);
        for (int length : lengths()) {
            byte[] data = new byte[length];
            random.nextBytes(data);
            assertEquals(referenceBase32(data), Keygen.base32Lower(data), "length " + length);
        }
    }

    private static int[] lengths() {
        return java.util.stream.IntStream.concat(java.util.stream.IntStream.range(0, 201),
                java.util.stream.IntStream.of(999, 1000, 1001)).toArray();
    }

    @Test
    void theTestJvmHasTheVectorApi() {
        assertTrue(Keygen.vectorsAvailable(), "surefire's argLine adds jdk.incubator.vector");
    }

    @Test
    void thousandBytesEncodeToExactly1600CharactersWithoutPadding() {
        for (String key : List.of(Keygen.base32Lower(new byte[1000]), Keygen.base32Tuned(new byte[1000], true))) {
            assertEquals(1600, key.length());
            assertEquals(-1, key.indexOf('='));
        }
    }

    /** Keys as a model makes them in its timed region, with `workers` and the rule's chunk. */
    private static String[] keys(String model, int count, int bytes, Keygen.KeySource source, int workers)
            throws Exception {
        Chunking.Plan plan = new Chunking.Plan(count, Chunking.defaultChunk(count, workers, Chunking.KEYS_CAP));
        return Keygen.generate(Keygen.runnerOf(model, new Workers.Team(workers, "cold")), plan, bytes, source).keys();
    }

    private static final List<String> KERNELS = List.of("portable", "tuned");
    private static final Keygen.KeySource PORTABLE = Keygen.KeySource.strong("portable");
    private static final Keygen.KeySource TUNED_VECTOR = Keygen.KeySource.strong("tuned", Keygen.VECTOR);
    private static final Keygen.KeySource TUNED_TABLE = Keygen.KeySource.strong("tuned", Keygen.TABLE);
    private static final List<Keygen.KeySource> STRONG = List.of(PORTABLE, TUNED_VECTOR, TUNED_TABLE);

    @Test
    void seededCount3Bytes10Seed1InBothKernels() throws Exception {
        for (String kernel : KERNELS) {
            Keygen.KeySource seeded = Keygen.KeySource.seeded(kernel, 1);
            String[] made = keys("seq", 3, 10, seeded, 1);
            // Protocol 2's test vector: the keys themselves, as --probes 0,1,2 reports them.
            assertEquals(List.of("yfoafcpmfufjcz7m", "m7wi4znbrxv34xsv", "lzktf67oukj7qc6j"), List.of(made), kernel);
            assertEquals("d3605c1b2c10e632", Keygen.checksum(made), kernel);
        }
    }

    @Test
    void theStrongChecksumIsTheDigestOfTheKeys() throws Exception {
        for (Keygen.KeySource strong : STRONG) {
            String[] made = keys("seq", 5, 10, strong, 1);
            long sum = 0;
            for (String key : made) {
                assertEquals(16, key.length());
                sum += parbench.Digest.fnv1a64(key);
            }
            assertEquals(parbench.Digest.digestHex(sum), Keygen.checksum(made), strong.toString());
        }
    }

    @ParameterizedTest(name = "count {0}, bytes {1}, seed {2}")
    @CsvSource({"257, 1000, 7", "31, 13, 12345", "1, 1, 0", "100, 4, -3", "2050, 3, 9"})
    void everyModelAndKernelAgreesWithSeqPortable(int count, int bytes, long seed) throws Exception {
        String expected = Keygen.checksum(keys("seq", count, bytes, Keygen.KeySource.seeded("portable", seed), 1));
        for (String kernel : KERNELS) {
            Keygen.KeySource seeded = Keygen.KeySource.seeded(kernel, seed);
            for (String model : List.of("seq", "parallel-stream", "virtual-threads")) {
                assertEquals(expected, Keygen.checksum(keys(model, count, bytes, seeded, 2)), model + " " + kernel);
            }
        }
    }

    @Test
    void portableAndTunedMakeTheSameKeys() throws Exception {
        String[] portable = keys("parallel-stream", 3000, 37, Keygen.KeySource.seeded("portable", 5), 2);
        String[] tuned = keys("virtual-threads", 3000, 37, Keygen.KeySource.seeded("tuned", 5), 2);
        assertEquals(List.of(portable), List.of(tuned));
    }

    @Test
    void everyModelMakesStrongKeysOfTheRightSize() throws Exception {
        for (String model : List.of("seq", "parallel-stream", "virtual-threads")) {
            for (Keygen.KeySource strong : STRONG) {
                String[] made = keys(model, 50, 7, strong, 3);
                assertEquals(50, made.length, model + " " + strong);
                for (String key : made) {
                    assertEquals(16, key.length(), model + " " + strong);
                }
            }
        }
    }

    @Test
    void strongKeysDifferAcrossKeysAndWorkers() throws Exception {
        for (Keygen.KeySource strong : STRONG) {
            String[] made = keys("parallel-stream", 3000, 16, strong, 2);
            assertEquals(3000, java.util.Set.of(made).size(), strong.toString());
        }
    }

    @Test
    void aesCtrGeneratorsDifferAndEachContinuesItsKeystream() throws Exception {
        // Two generators made alike differ (their keys come from the OS) ...
        byte[] first = new byte[32];
        byte[] second = new byte[32];
        new Keygen.AesCtrKeystream(32).fill(0, first);
        new Keygen.AesCtrKeystream(32).fill(0, second);
        assertTrue(!java.util.Arrays.equals(first, second));
        // ... and one generator's successive keys continue one keystream, not restart it.
        Keygen.AesCtrKeystream one = new Keygen.AesCtrKeystream(16);
        byte[] a = new byte[16];
        byte[] b = new byte[16];
        one.fill(0, a);
        one.fill(1, b);
        assertTrue(!java.util.Arrays.equals(a, b));
    }

    private static Workload.PreparedCase prepared(String model, String... more) throws Exception {
        List<String> words = new ArrayList<>(List.of("--count", "2000", "--bytes", "10", "--source", "seeded"));
        words.addAll(List.of(more));
        return new Keygen().prepare(model, Protocol.Args.parse(words), 2);
    }

    @Test
    void theCeilingIsCsprngPlusBase32() throws Exception {
        for (String model : List.of("seq", "parallel-stream", "virtual-threads")) {
            Map<String, Object> extra = prepared(model).run().extra();
            assertEquals("csprng+base32", extra.get("ceiling"), model);
            long csprng = (Long) extra.get("csprng_ns");
            long base32 = (Long) extra.get("base32_ns");
            assertTrue(csprng > 0 && base32 > 0, model);
            assertEquals(csprng + base32, extra.get("ceiling_ns"), model);
        }
    }

    @Test
    void aVariantIsTheRepetitionsSeedAndProbesAreItsKeys() throws Exception {
        for (String kernel : KERNELS) {
            for (String model : List.of("seq", "parallel-stream", "virtual-threads")) {
                Workload.PreparedCase prepared = new Keygen().prepare(model, Protocol.Args.parse(List.of(
                        "--count", "3", "--bytes", "10", "--source", "seeded", "--seed", "99",
                        "--probes", "2,0,1", "--kernel", kernel)), 2);
                Protocol.Repetition repetition = Protocol.runRepetition(prepared::run, 1L);
                assertEquals("d3605c1b2c10e632", repetition.checksum(), model + " " + kernel);
                assertEquals(List.of("lzktf67oukj7qc6j", "yfoafcpmfufjcz7m", "m7wi4znbrxv34xsv"),
                        repetition.extra().get("probes"), model + " " + kernel);
                assertEquals(kernel, prepared.extra().get("kernel"));
            }
        }
    }

    /** Seeds take all 64 bits: a variant or --seed past 2^63 is the same SplitMix64 seed the oracle uses. */
    @Test
    void aSeedPast2To63IsItsUnsigned64Bits() throws Exception {
        Workload.PreparedCase prepared = new Keygen().prepare("parallel-stream", Protocol.Args.parse(List.of(
                "--count", "3", "--bytes", "10", "--source", "seeded", "--seed", "18446744073709551615")), 2);
        assertEquals("329c8d2feb11cfc0", prepared.run().checksum());
        Protocol.Repetition repetition =
                Protocol.runRepetition(prepared::run, Long.parseUnsignedLong("15975367667203046757"));
        assertEquals("a06fcf9543fc33cf", repetition.checksum());
        assertEquals("15975367667203046757", repetition.extra().get("seed"));
    }

    @Test
    void aProbeIsKeyIOfTheChunkingsOrder() throws Exception {
        Workload.PreparedCase prepared = prepared("parallel-stream", "--chunk", "7", "--probes", "0,6,7,1999");
        Protocol.Repetition repetition = Protocol.runRepetition(prepared::run, 42L);
        List<String> want = new ArrayList<>();
        for (int index : new int[] {0, 6, 7, 1999}) {
            want.add(Keygen.base32Lower(parbench.Digest.splitMix64Bytes(42, index, 10)));
        }
        assertEquals(want, repetition.extra().get("probes"));
    }

    @Test
    void strongIgnoresTheVariantAndDiffersEveryRepetition() throws Exception {
        for (String kernel : KERNELS) {
            Workload.PreparedCase prepared = new Keygen().prepare("parallel-stream", Protocol.Args.parse(List.of(
                    "--count", "300", "--bytes", "10", "--source", "strong", "--kernel", kernel)), 2);
            String first = Protocol.runRepetition(prepared::run, 1L).checksum();
            String second = Protocol.runRepetition(prepared::run, 1L).checksum();
            assertTrue(first.matches("[0-9a-f]{16}") && !first.equals(second), kernel);
        }
    }

    @Test
    void theBase32KernelOptionBelongsToTheTunedKernel() throws Exception {
        assertThrows(Protocol.BadArguments.class, () -> prepared("seq", "--base32-kernel", "table"));
        Map<String, Object> extra = prepared("seq", "--base32-kernel", "table", "--kernel", "tuned").extra();
        assertEquals("table", extra.get("base32_kernel"));
        assertTrue(((String) extra.get("kernel_detail")).contains("10-bit pair table (1,024"), extra.toString());
    }

    @Test
    void theTunedKernelRunsTheVectorEncoderByDefaultWhereTheJvmHasIt() throws Exception {
        Map<String, Object> extra = prepared("seq", "--kernel", "tuned").extra();
        assertEquals("vector", extra.get("base32_kernel"));
        assertTrue(((String) extra.get("kernel_detail")).startsWith("AES-128-CTR"), extra.toString());
    }

    @Test
    void withoutTheVectorApiTheTableRunsAndAskingForVectorsIsAClearExit() {
        // The choice a JVM without jdk.incubator.vector (or with narrow vectors) makes.
        assertEquals("table", Keygen.base32KernelNamed(null, List.of("table")));
        Protocol.BadArguments refusal = assertThrows(Protocol.BadArguments.class,
                () -> Keygen.base32KernelNamed("vector", List.of("table")));
        assertTrue(refusal.getMessage().contains("not one this JVM runs; valid here: table"), refusal.getMessage());
        assertThrows(Protocol.BadArguments.class, () -> Keygen.base32KernelNamed("avx", List.of("vector", "table")));
        assertEquals("vector", Keygen.base32KernelNamed(null, List.of("vector", "table")));
    }

    @ParameterizedTest(name = "base32 {0}")
    @ValueSource(strings = {"vector", "table"})
    void eachTunedEncoderMakesThePortableKeysOnRandomSeeds(String base32) throws Exception {
        java.util.Random random = new java.util.Random(47);
        for (int trial = 0; trial < 5; trial++) {
            long seed = random.nextLong();
            int bytes = 1 + random.nextInt(1200);
            String[] portable = keys("seq", 300, bytes, Keygen.KeySource.seeded("portable", seed), 1);
            String[] tuned = keys("parallel-stream", 300, bytes, Keygen.KeySource.seeded("tuned", base32, seed), 2);
            assertEquals(List.of(portable), List.of(tuned), "seed " + seed + ", bytes " + bytes);
        }
    }

    @Test
    void aProbeOutsideTheKeysIsABadArgument() {
        org.junit.jupiter.api.Assertions.assertThrows(Protocol.BadArguments.class,
                () -> prepared("seq", "--probes", "2000"));
    }

    @Test
    void smokeSizeSplitsIntoOneChunkPerWorker() throws Exception {
        Workload.PreparedCase prepared = prepared("parallel-stream");
        assertEquals(1000, prepared.extra().get("chunk"));
        assertEquals(2, prepared.extra().get("chunks"));
    }

    @Test
    void chunkOverridesTheRule() throws Exception {
        Workload.PreparedCase prepared = prepared("virtual-threads", "--chunk", "7");
        assertEquals(7, prepared.extra().get("chunk"));
        assertEquals(286, prepared.extra().get("chunks"));
        assertEquals(2000L, prepared.run().items());
    }

    /**
     * The AVX2 path (a CPU without AVX-512): a JVM told -XX:UseAVX=2 prefers 256-bit vectors, and
     * the vector encoder still runs there (kernel_detail says so) and makes the portable kernel's
     * keys: the spec's verify case, 257 keys of 1000 bytes from seed 7.
     */
    @Test
    void withAvx2TheVectorEncoderRunsAt256BitsAndMakesThePortableKeys() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(ChildJvm.cpuHas("avx2"), "this CPU lacks AVX2, which -XX:UseAVX=2 needs");
        String line = ChildJvm.lastLine(List.of("-XX:UseAVX=2"), "7", "keygen", "--model", "seq", "--count", "257",
                "--bytes", "1000", "--source", "seeded", "--kernel", "tuned");
        assertEquals("vector", ChildJvm.field(line, "base32_kernel"));
        assertTrue(ChildJvm.field(line, "kernel_detail").contains("(256-bit, 32 byte lanes)"), line);
        assertEquals("7631c31158f50f9a", ChildJvm.field(line, "checksum"));
    }
}
