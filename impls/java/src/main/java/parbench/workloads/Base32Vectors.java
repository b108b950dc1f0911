package parbench.workloads;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * keygen's Base32 with the Vector API: one vector of input holds lanes/8 five-byte groups; a
 * shuffle puts each group big-endian into its own 64-bit lane, eight rotate-and-mask steps cut
 * the lane's 40 bits into its eight 5-bit values (one per byte), and a selectFrom of the
 * alphabet turns them into characters, a whole vector of output at a time. Only loaded when the
 * jdk.incubator.vector module is present (see Keygen.vectorsAvailable).
 */
final class Base32Vectors {
    private Base32Vectors() {}

    static final VectorSpecies<Byte> SPECIES = ByteVector.SPECIES_PREFERRED;
    private static final int GROUPS = SPECIES.length() / 8;
    /** Input bytes one vector encodes; the load reads a whole vector, so that many must remain. */
    private static final int INPUT_PER_VECTOR = 5 * GROUPS;

    /** Output byte 8g + j takes group g's byte 4 - j (big-endian in the lane); bytes 5-7 are never read. */
    private static final VectorShuffle<Byte> GROUPS_INTO_LANES = VectorShuffle.fromOp(SPECIES, lane -> {
        int group = lane / 8;
        int byteInLane = lane % 8;
        return 5 * group + (byteInLane < 5 ? 4 - byteInLane : 0);
    });

    private static final ByteVector ALPHABET = alphabet();

    private static ByteVector alphabet() {
        byte[] lanes = new byte[SPECIES.length()];
        byte[] letters = "abcdefghijklmnopqrstuvwxyz234567".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        for (int i = 0; i < lanes.length; i++) {
            lanes[i] = letters[i % 32];
        }
        return ByteVector.fromArray(SPECIES, lanes, 0);
    }

    /** The alphabet must fit one vector (32 lanes) for a one-vector selectFrom. */
    static boolean worthUsing() {
        return SPECIES.length() >= 32;
    }

    static String describe() {
        return "Vector API, ByteVector.SPECIES_PREFERRED (" + SPECIES.vectorBitSize() + "-bit, " + SPECIES.length()
                + " byte lanes): rearrange 5-byte groups into 64-bit lanes, rotate-and-mask to 5-bit values, "
                + "selectFrom the alphabet, " + GROUPS + " groups per vector";
    }

    /**
     * Encodes data[0, n) for the largest n, a multiple of 5, that leaves a whole vector readable
     * at each load; returns n. The caller encodes the rest.
     */
    static int encodeWholeGroups(byte[] data, byte[] out) {
        int offset = 0;
        int written = 0;
        for (; offset + SPECIES.length() <= data.length; offset += INPUT_PER_VECTOR,
                written += SPECIES.length()) {
            LongVector groups = ByteVector.fromArray(SPECIES, data, offset).rearrange(GROUPS_INTO_LANES)
                    .reinterpretAsLongs();
            fiveBitValues(groups).reinterpretAsBytes().selectFrom(ALPHABET).intoArray(out, written);
        }
        return offset;
    }

    /**
     * Character k of a lane (its byte k, little-endian) is bits 35-5k .. 39-5k of the group:
     * a rotation brings them to bits 8k .. 8k+4 and a mask keeps them. No kept bit wraps around
     * the lane, so the rotation's direction needs no branch.
     */
    private static LongVector fiveBitValues(LongVector groups) {
        return character(groups, 0).or(character(groups, 1)).or(character(groups, 2)).or(character(groups, 3))
                .or(character(groups, 4)).or(character(groups, 5)).or(character(groups, 6))
                .or(character(groups, 7));
    }

    private static LongVector character(LongVector groups, int k) {
        int rightBy = (35 - 5 * k) - 8 * k;
        return groups.lanewise(VectorOperators.ROR, rightBy & 63).and(31L << (8 * k));
    }
}
