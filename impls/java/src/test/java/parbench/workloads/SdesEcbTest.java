package parbench.workloads;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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
        int[] keys = SdesEcb.subkeys(0b1010000010);
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
        int[] keys = SdesEcb.subkeys(Integer.parseInt(key, 2));
        assertEquals(Integer.parseInt(cipher, 2), SdesEcb.encryptByte(Integer.parseInt(plain, 2), keys[0], keys[1]));
    }

    @Test
    void tableOfKey642() {
        assertEquals(TABLE_OF_642, HexFormat.of().formatHex(SdesEcb.table(642)));
    }

    @Test
    void quickBrownFoxUnderKey642() throws Exception {
        byte[] plain = "The quick brown fox jumps over the lazy dog\n".getBytes(StandardCharsets.US_ASCII);
        for (String kind : new String[] {"bitwise", "table"}) {
            byte[] cipher = SdesEcb.encrypt("seq", SdesEcb.cipherOf(kind, 642), plain, plain.length, null);
            assertEquals("914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf",
                    HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(cipher)), kind);
        }
    }

    @ParameterizedTest(name = "size {0}, key {1}, chunk {2}")
    @CsvSource({"100003, 910, 4096", "64, 1, 7", "1, 1023, 1", "5000, 642, 5000", "77777, 300, 1000000"})
    void everyModelAndCipherAgreesWithSeqTable(int size, int key, int chunk) throws Exception {
        byte[] plain = new byte[size];
        new java.util.Random(size * 31L + key).nextBytes(plain);
        byte[] expected = SdesEcb.encrypt("seq", SdesEcb.cipherOf("table", key), plain, chunk, null);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            for (String kind : new String[] {"bitwise", "table"}) {
                SdesEcb.RangeCipher cipher = SdesEcb.cipherOf(kind, key);
                for (String model : new String[] {"seq", "parallel-stream", "threads"}) {
                    assertArrayEquals(expected, SdesEcb.encrypt(model, cipher, plain, chunk, pool), model + " " + kind);
                }
            }
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void defaultChunkSplitsSmallInputsAcrossEveryWorker() {
        assertEquals(32, SdesEcb.defaultChunk(64, 2));
        assertEquals(1 << 20, SdesEcb.defaultChunk(67_108_864, 2));
        assertEquals(1, SdesEcb.defaultChunk(1, 4));
    }
}
