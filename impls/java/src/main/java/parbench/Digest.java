package parbench;

import java.nio.charset.StandardCharsets;

/** The helpers every workload spec shares: FNV-1a 64, the order-free digest, SplitMix64 bytes. */
public final class Digest {
    private Digest() {}

    private static final long FNV_OFFSET = 0xcbf29ce484222325L;
    private static final long FNV_PRIME = 0x100000001b3L;
    private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;

    public static long fnv1a64(byte[] data) {
        long hash = FNV_OFFSET;
        for (byte b : data) {
            hash ^= b & 0xff;
            hash *= FNV_PRIME;
        }
        return hash;
    }

    public static long fnv1a64(String ascii) {
        return fnv1a64(ascii.getBytes(StandardCharsets.UTF_8));
    }

    /** The order-free digest is a sum mod 2^64, which Java's long addition already is. */
    public static String digestHex(long sumOfHashes) {
        return String.format("%016x", sumOfHashes);
    }

    public static byte[] splitMix64Bytes(long seed, long index, int length) {
        byte[] out = new byte[length];
        splitMix64BytesInto(seed, index, out);
        return out;
    }

    /** bytes(seed, index, out.length) written into `out`. */
    public static void splitMix64BytesInto(long seed, long index, byte[] out) {
        int length = out.length;
        long state = seed + index * GOLDEN_GAMMA;
        for (int offset = 0; offset < length; offset += 8) {
            state += GOLDEN_GAMMA;
            long z = state;
            z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
            z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
            z ^= z >>> 31;
            for (int k = 0; k < 8 && offset + k < length; k++) {
                out[offset + k] = (byte) (z >>> (8 * k));
            }
        }
    }
}
