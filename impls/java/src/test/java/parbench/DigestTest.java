package parbench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/** The shared helpers of workloads/README.md, against its vectors. */
class DigestTest {
    @Test
    void fnv1a64OfEmptyIsTheOffsetBasis() {
        assertEquals(0xcbf29ce484222325L, Digest.fnv1a64(new byte[0]));
    }

    @Test
    void fnv1a64OfA() {
        assertEquals(0xaf63dc4c8601ec8cL, Digest.fnv1a64("a"));
    }

    @Test
    void orderFreeDigestIsSixteenLowerHexDigits() {
        assertEquals("00000000000000ff", Digest.digestHex(255));
        assertEquals("ffffffffffffffff", Digest.digestHex(-1));
    }

    @Test
    void splitMix64BytesSeed1Index0Length16() {
        assertEquals("c15c0289ec2d0a9167ec8e65a18debbe",
                HexFormat.of().formatHex(Digest.splitMix64Bytes(1, 0, 16)));
    }

    @Test
    void splitMix64BytesTruncatesToTheAskedLength() {
        assertEquals("c15c0289ec", HexFormat.of().formatHex(Digest.splitMix64Bytes(1, 0, 5)));
    }
}
