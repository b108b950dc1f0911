package parbench.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

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

    @Test
    void thousandBytesEncodeToExactly1600CharactersWithoutPadding() {
        String key = Keygen.base32Lower(new byte[1000]);
        assertEquals(1600, key.length());
        assertEquals(-1, key.indexOf('='));
    }

    @Test
    void seededCount3Bytes10Seed1() throws Exception {
        assertEquals("d3605c1b2c10e632", Keygen.checksum(Keygen.sequential(3, 10, "seeded", 1), "seeded"));
    }

    @Test
    void strongChecksumIsCountAndTotalCharacters() {
        assertEquals("5:80", Keygen.checksum(Keygen.sequential(5, 10, "strong", 0), "strong"));
    }

    @ParameterizedTest(name = "count {0}, bytes {1}, seed {2}")
    @CsvSource({"257, 1000, 7", "31, 13, 12345", "1, 1, 0", "100, 4, -3"})
    void everyModelAgreesWithSeq(int count, int bytes, long seed) throws Exception {
        String expected = Keygen.checksum(Keygen.sequential(count, bytes, "seeded", seed), "seeded");
        assertEquals(expected, Keygen.checksum(Keygen.parallelStream(count, bytes, "seeded", seed), "seeded"));
        assertEquals(expected, Keygen.checksum(Keygen.virtualThreads(count, bytes, "seeded", seed, 2), "seeded"));
    }

    @Test
    void everyModelMakesStrongKeysOfTheRightSize() throws Exception {
        for (List<String> keys : List.of(Keygen.parallelStream(50, 7, "strong", 0),
                Keygen.virtualThreads(50, 7, "strong", 0, 3))) {
            assertEquals("50:800", Keygen.checksum(keys, "strong"));
        }
    }
}
