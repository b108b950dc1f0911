package parbench.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
    void theEncoderAgreesWithTheSpecForEveryLengthUpTo200And1000(boolean vectors) {
        java.util.Random random = new java.util.Random(32);
        for (int length : java.util.stream.IntStream.concat(java.util.stream.IntStream.range(0, 201),
                java.util.stream.IntStream.of(999, 1000, 1001)).toArray()) {
            byte[] data = new byte[length];
            random.nextBytes(data);
            assertEquals(referenceBase32(data), Keygen.base32Lower(data, vectors), "length " + length);
        }
    }

    @Test
    void theTestJvmHasTheVectorApi() {
        assertTrue(Keygen.vectorsAvailable(), "surefire's argLine adds jdk.incubator.vector");
    }

    @Test
    void thousandBytesEncodeToExactly1600CharactersWithoutPadding() {
        String key = Keygen.base32Lower(new byte[1000]);
        assertEquals(1600, key.length());
        assertEquals(-1, key.indexOf('='));
    }

    /** Keys as a model makes them in its timed region, with `workers` and the rule's chunk. */
    private static String[] keys(String model, int count, int bytes, Keygen.KeySource source, int workers)
            throws Exception {
        Chunking.Plan plan = new Chunking.Plan(count, Chunking.defaultChunk(count, workers, Chunking.KEYS_CAP));
        return Keygen.generate(Keygen.runnerOf(model, workers), plan, bytes, source, true).keys();
    }

    private static final Keygen.KeySource DRBG = Keygen.KeySource.strong("drbg");
    private static final Keygen.KeySource AES_CTR = Keygen.KeySource.strong("aes-ctr");

    @Test
    void seededCount3Bytes10Seed1() throws Exception {
        assertEquals("d3605c1b2c10e632", Keygen.checksum(keys("seq", 3, 10, Keygen.KeySource.seeded(1), 1), Keygen.KeySource.seeded(1)));
    }

    @Test
    void strongChecksumIsCountAndTotalCharacters() throws Exception {
        assertEquals("5:80", Keygen.checksum(keys("seq", 5, 10, DRBG, 1), DRBG));
    }

    @ParameterizedTest(name = "count {0}, bytes {1}, seed {2}")
    @CsvSource({"257, 1000, 7", "31, 13, 12345", "1, 1, 0", "100, 4, -3", "2050, 3, 9"})
    void everyModelAgreesWithSeq(int count, int bytes, long seed) throws Exception {
        Keygen.KeySource seeded = Keygen.KeySource.seeded(seed);
        String expected = Keygen.checksum(keys("seq", count, bytes, seeded, 1), seeded);
        for (String model : List.of("parallel-stream", "virtual-threads")) {
            assertEquals(expected, Keygen.checksum(keys(model, count, bytes, seeded, 2), seeded), model);
        }
    }

    @Test
    void everyModelMakesStrongKeysOfTheRightSize() throws Exception {
        for (String model : List.of("seq", "parallel-stream", "virtual-threads")) {
            for (Keygen.KeySource strong : List.of(DRBG, AES_CTR)) {
                assertEquals("50:800", Keygen.checksum(keys(model, 50, 7, strong, 3), strong), model + " " + strong);
            }
        }
    }

    @Test
    void strongKeysDifferAcrossKeysAndWorkers() throws Exception {
        for (Keygen.KeySource strong : List.of(DRBG, AES_CTR)) {
            String[] made = keys("parallel-stream", 3000, 16, strong, 2);
            assertEquals(3000, java.util.Set.of(made).size(), strong.rng());
        }
    }

    @Test
    void aesCtrGeneratorsDifferAndEachContinuesItsKeystream() throws Exception {
        // Two generators made alike differ (their keys come from the DRBG) ...
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

    private static Workload.PreparedCase prepared(String model, String... more) {
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
    void smokeSizeSplitsIntoOneChunkPerWorker() {
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
}
