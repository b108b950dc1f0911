package parbench.workloads;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import parbench.Chunking;
import parbench.Protocol;
import parbench.Workers;
import parbench.Workload;
import parbench.workloads.SdesTechniques.Technique;

/** sdes-ecb's spec: subkeys, the byte vectors, key 642's table, and both ciphers in every model agreeing. */
class SdesEcbTest {
    private static final String TABLE_OF_642 =
            "ce81add08bc4ec95747b43b631dec213f7104b9b52550e3eae9e20f5eb3b65b062290578e368401ddc932b5eb9366efb"
            + "1fb82373badda2d602768c7d83d3cd18fa1519445f507c01e0af17c6a5eab247a3849f4f22c13a0a9aaab4613feff124"
            + "129d91e8b7f8d4a94cc7ff6a0d465a2fcb2877278e69d2a672061cc9d78779886ce70b962d664e3332bd25f097d860b5"
            + "5156ed5d14f3ac380c9882534dfd03f6c08f637e85cae2dbda358d587f70cc3dd9be45d5bc1b0090a0302ebbe5756b1e"
            + "fcb3dfe699167a674209b164c348f421c52659e980a73ca89c08f207f9495786545b374a11fe920feea139c8abe45c89"
            + "6d8ad1412ccf940434a41a6f71e1bf2a";

    @Test
    void key1010000010GivesK1And10100100K2Of01000011() {
        int[] keys = SdesReference.subkeys(0b1010000010);
        assertEquals(0b10100100, keys[0]);
        assertEquals(0b01000011, keys[1]);
    }

    @ParameterizedTest(name = "key {0}, plaintext {1} -> {2}")
    @CsvSource({
        "0000000000, 10101010, 00010001",
        "1110001110, 10101010, 11001010",
        "1110001110, 01010101, 01110000",
        "1111111111, 10101010, 00000100",
        "1010000010, 10010111, 00111000",
        "1010000010, 00000011, 11010000",
    })
    void byteVectors(String key, String plain, String cipher) {
        int[] keys = SdesReference.subkeys(Integer.parseInt(key, 2));
        assertEquals(Integer.parseInt(cipher, 2),
                SdesReference.encryptByte(keys[0], keys[1], Integer.parseInt(plain, 2)));
    }

    @Test
    void tableOfKey642() {
        assertEquals(TABLE_OF_642, HexFormat.of().formatHex(SdesEcb.table(642)));
    }

    /** Encrypts with a model as the timed region does: key schedule, workers, chunks, into `out`. */
    private static byte[] encrypt(String model, String start, String kind, int key, Technique technique,
            byte[] plain, int chunk) throws Exception {
        byte[] out = new byte[plain.length];
        SdesEcb.encrypt(SdesEcb.runnerOf(model, new Workers.Team(3, start)), kind, key, technique, plain, out,
                new Chunking.Plan(plain.length, chunk));
        return out;
    }

    private static byte[] encrypt(String model, String kind, int key, Technique technique, byte[] plain, int chunk)
            throws Exception {
        return encrypt(model, "cold", kind, key, technique, plain, chunk);
    }

    /** The portable kernel (null) and every technique of the tuned one that serves `kind`, fallbacks included. */
    private static List<Technique> everyKernel(String kind) {
        List<Technique> kernels = new ArrayList<>();
        kernels.add(null);
        kernels.addAll(SdesTechniques.preference(kind));
        return kernels;
    }

    /** The portable kernel is the reference procedure: its pieces read the spec's tables as the spec does. */
    @Test
    void theReferencePermutesAsTheSpecCountsPositions() {
        assertEquals(0b10, SdesReference.permute(0b01, 2, new int[] {2, 1}));
        // Input bit 7 of 10 (value 8) is P10's fourth position: output bit 4 of 10.
        assertEquals(0b0001000000, SdesReference.permute(0b0000001000, 10, SdesReference.P10));
        assertEquals(0b00010, SdesReference.rotate5(0b00001, 1));
        assertEquals(0b00001, SdesReference.rotate5(0b10000, 1));
    }

    @Test
    void theReferenceSBoxesTakeTheRowFromBits1And4AndTheColumnFromBits2And3() {
        assertEquals(3, SdesReference.sbox(SdesReference.S0, 0b1001)); // S0[3][0]
        assertEquals(2, SdesReference.sbox(SdesReference.S0, 0b0110)); // S0[0][3]
        assertEquals(1, SdesReference.sbox(SdesReference.S1, 0b1100)); // S1[2][2]
    }

    @Test
    void theTestJvmHasTheVectorApi() {
        assertTrue(SdesTechniques.Machine.current().vectorModule(), "surefire's argLine adds jdk.incubator.vector");
    }

    @Test
    void quickBrownFoxUnderKey642() throws Exception {
        byte[] plain = "The quick brown fox jumps over the lazy dog\n".getBytes(StandardCharsets.US_ASCII);
        for (String kind : new String[] {"bitwise", "table"}) {
            for (Technique technique : everyKernel(kind)) {
                assertEquals("914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf",
                        SdesEcb.sha256(encrypt("seq", kind, 642, technique, plain, plain.length)),
                        kind + " " + technique);
            }
        }
    }

    /** Every byte value, at every offset within a vector, so each lane meets each table entry. */
    @Test
    void everyKernelGivesKey642sTableForEveryByteAtEveryLane() throws Exception {
        byte[] table = SdesEcb.table(642);
        byte[] plain = new byte[256 * 67 + 13];
        for (int i = 0; i < plain.length; i++) {
            plain[i] = (byte) (i * 7 + i / 256);
        }
        for (String kind : new String[] {"bitwise", "table"}) {
            for (Technique technique : everyKernel(kind)) {
                byte[] cipher = encrypt("seq", kind, 642, technique, plain, plain.length);
                for (int i = 0; i < plain.length; i++) {
                    assertEquals(table[plain[i] & 0xff], cipher[i], kind + " " + technique + " at " + i);
                }
            }
        }
    }

    @ParameterizedTest(name = "size {0}, key {1}, chunk {2}")
    @CsvSource({"100003, 910, 4096", "64, 1, 7", "1, 1023, 1", "5000, 642, 5000", "77777, 300, 1000000"})
    void everyModelAndCipherAgreesWithSeqTable(int size, int key, int chunk) throws Exception {
        byte[] plain = new byte[size];
        new java.util.Random(size * 31L + key).nextBytes(plain);
        byte[] expected = encrypt("seq", "table", key, null, plain, size);
        for (String kind : new String[] {"bitwise", "table"}) {
            for (String model : new String[] {"seq", "parallel-stream", "threads"}) {
                for (String start : new String[] {"cold", "warm"}) {
                    for (Technique technique : everyKernel(kind)) {
                        assertArrayEquals(expected, encrypt(model, start, kind, key, technique, plain, chunk),
                                model + " " + start + " " + kind + " " + technique);
                    }
                }
            }
        }
    }

    @Test
    void theCopyCeilingCopiesEveryChunk() throws Exception {
        byte[] plain = new byte[10_001];
        new java.util.Random(5).nextBytes(plain);
        byte[] out = new byte[plain.length];
        SdesEcb.copy(SdesEcb.runnerOf("threads", new Workers.Team(3, "cold")), plain, out,
                new Chunking.Plan(plain.length, 999));
        assertArrayEquals(plain, out);
    }

    /** A prepared case over a file of `size` random bytes, as the harness runs it. */
    private static Workload.PreparedCase prepared(Path dir, String model, int size, String... more) throws Exception {
        byte[] plain = new byte[size];
        new java.util.Random(size).nextBytes(plain);
        Path input = Files.write(dir.resolve("input-" + size), plain);
        List<String> words = new ArrayList<>(List.of("--input", input.toString(), "--key", "642", "--cipher", "table"));
        words.addAll(List.of(more));
        return new SdesEcb().prepare(model, Protocol.Args.parse(words), 2);
    }

    @Test
    void everyRepetitionRewritesTheReusedBufferAndReportsTheCopyCeiling(@TempDir Path dir) throws Exception {
        for (String model : new String[] {"seq", "parallel-stream", "threads"}) {
            Workload.PreparedCase prepared = prepared(dir, model, 100_000);
            Protocol.Repetition first = prepared.run();
            Protocol.Repetition second = prepared.run();
            assertEquals(first.checksum(), second.checksum(), model);
            assertEquals(100_000, second.items(), model);
            assertEquals("copy", second.extra().get("ceiling"), model);
            assertTrue((Long) second.extra().get("ceiling_ns") > 0, model);
        }
    }

    @Test
    void parallelModelsReportWorkersChunkChunksAndWorkersUsed(@TempDir Path dir) throws Exception {
        Workload.PreparedCase prepared = prepared(dir, "threads", 3 << 20);
        assertEquals(2, prepared.extra().get("workers"));
        assertEquals(1 << 20, prepared.extra().get("chunk"));
        assertEquals(3, prepared.extra().get("chunks"));
        // A pool of 2 given 3 tasks starts 2 threads, each with a task of its own: both are used.
        assertEquals(2, prepared.run().extra().get("workers_used"));
    }

    @Test
    void chunkOverridesTheRule(@TempDir Path dir) throws Exception {
        Workload.PreparedCase prepared = prepared(dir, "parallel-stream", 1000, "--chunk", "300");
        assertEquals(300, prepared.extra().get("chunk"));
        assertEquals(4, prepared.extra().get("chunks"));
    }

    // Protocol 2: each repetition encrypts under its own variant key, and both kernels agree.
    @Test
    void eachRepetitionUsesItsVariantKeyInBothKernels(@TempDir Path dir) throws Exception {
        byte[] plain = new byte[10_007];
        new java.util.Random(10_007).nextBytes(plain);
        for (String cipher : new String[] {"bitwise", "table"}) {
            for (String kernel : new String[] {"portable", "tuned"}) {
                Workload.PreparedCase prepared = prepared(dir, "threads", 10_007, "--cipher", cipher,
                        "--kernel", kernel);
                for (int key : new int[] {642, 1023, 5, 0}) {
                    byte[] expected = encrypt("seq", "table", key, null, plain, plain.length);
                    Protocol.Repetition repetition = Protocol.runRepetition(prepared::run, (long) key);
                    assertEquals(SdesEcb.sha256(expected), repetition.checksum(), cipher + " " + kernel + " " + key);
                    assertEquals(kernel, prepared.extra().get("kernel"));
                    assertFalse(((List<?>) repetition.extra().get("busy")).isEmpty());
                }
            }
        }
    }

    @Test
    void aVariantKeyOutside10BitsIsABadArgument(@TempDir Path dir) throws Exception {
        Workload.PreparedCase prepared = prepared(dir, "seq", 100);
        org.junit.jupiter.api.Assertions.assertThrows(Protocol.BadArguments.class,
                () -> Protocol.runRepetition(prepared::run, 1024L));
    }

    /** Every tuned technique, fallbacks included, against the portable kernel: random inputs, every key. */
    @Test
    void everyTunedTechniqueAgreesWithThePortableKernelForEveryKey() throws Exception {
        java.util.Random random = new java.util.Random(3);
        for (int key = 0; key < 1024; key++) {
            byte[] plain = new byte[random.nextInt(1, 3 * 64 + 40)];
            random.nextBytes(plain);
            for (String cipher : new String[] {"bitwise", "table"}) {
                byte[] portable = encrypt("seq", cipher, key, null, plain, plain.length);
                for (Technique technique : SdesTechniques.preference(cipher)) {
                    assertArrayEquals(portable, encrypt("seq", cipher, key, technique, plain, plain.length),
                            cipher + " " + technique + " key " + key + " size " + plain.length);
                }
            }
        }
    }
}
