package parbench.workloads;

import java.util.ArrayList;
import java.util.List;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * sdes-ecb with the Vector API, both forms. Table: the key's 256-byte table is cut into pieces
 * of two vectors each, and every input vector looks its bytes up with the two-vector selectFrom
 * (one vpermi2b per pair on AVX-512 VBMI), the pairs' results blended by the index's high bits.
 * Bitwise: every byte still goes through IP, both Feistel rounds (E/P, key, S-boxes, P4) and
 * IP⁻¹, one lane per byte, the permutations done with shifts and masks on 64-bit lanes.
 * Only loaded when the jdk.incubator.vector module is present (see SdesEcb.vectorsAvailable).
 */
final class SdesVectors {
    private SdesVectors() {}

    static final VectorSpecies<Byte> SPECIES = ByteVector.SPECIES_PREFERRED;
    /** The same vectors seen as 64-bit lanes, where shifts are single instructions. */
    static final VectorSpecies<Long> LONGS = SPECIES.withLanes(long.class);

    /** Below 128-bit vectors a lookup takes more pieces than the scalar loop costs. */
    static boolean worthUsing() {
        return SPECIES.vectorBitSize() >= 128;
    }

    static String describe(String kind) {
        String vectors = "Vector API, ByteVector.SPECIES_PREFERRED (" + SPECIES.vectorBitSize() + "-bit, "
                + SPECIES.length() + " byte lanes), ";
        return kind.equals("table")
                ? vectors + 256 / (2 * SPECIES.length()) + " two-vector selectFrom lookups per vector"
                : vectors + "one byte per lane through every round: shift-and-mask permutations, "
                        + "selectFrom S-boxes";
    }

    /** The table as vectors: piece p covers entries [p * lanes, (p + 1) * lanes). */
    static ByteVector[] pieces(byte[] table) {
        int lanes = SPECIES.length();
        ByteVector[] pieces = new ByteVector[256 / lanes];
        for (int p = 0; p < pieces.length; p++) {
            pieces[p] = ByteVector.fromArray(SPECIES, table, p * lanes);
        }
        return pieces;
    }

    /** out[i] = table[plain[i]] for i in [from, to): whole vectors first, the tail one byte at a time. */
    static void lookup(byte[] table, ByteVector[] pieces, byte[] plain, byte[] out, int from, int to) {
        int i = from;
        if (pieces.length == 4) {
            i = lookupWithTwoPairs(pieces, plain, out, from, to);
        } else {
            i = lookupWithAnyPairs(pieces, plain, out, from, to);
        }
        for (; i < to; i++) {
            out[i] = table[plain[i] & 0xff];
        }
    }

    /** 512-bit vectors: two pairs cover the table, and the byte's sign bit picks the pair. */
    private static int lookupWithTwoPairs(ByteVector[] pieces, byte[] plain, byte[] out, int from, int to) {
        ByteVector low0 = pieces[0];
        ByteVector low1 = pieces[1];
        ByteVector high0 = pieces[2];
        ByteVector high1 = pieces[3];
        int lanes = SPECIES.length();
        int bound = from + SPECIES.loopBound(to - from);
        int i = from;
        for (; i < bound; i += lanes) {
            ByteVector index = ByteVector.fromArray(SPECIES, plain, i);
            ByteVector low = index.selectFrom(low0, low1);
            ByteVector high = index.selectFrom(high0, high1);
            low.blend(high, index.lt((byte) 0)).intoArray(out, i);
        }
        return i;
    }

    /** Narrower vectors: one lookup per pair of pieces, each blended in where the index reaches its pair. */
    private static int lookupWithAnyPairs(ByteVector[] pieces, byte[] plain, byte[] out, int from, int to) {
        int lanes = SPECIES.length();
        int bound = from + SPECIES.loopBound(to - from);
        int i = from;
        for (; i < bound; i += lanes) {
            ByteVector index = ByteVector.fromArray(SPECIES, plain, i);
            ByteVector result = index.selectFrom(pieces[0], pieces[1]);
            for (int p = 2; p < pieces.length; p += 2) {
                ByteVector pair = index.selectFrom(pieces[p], pieces[p + 1]);
                result = result.blend(pair, index.compare(VectorOperators.UGE, (byte) (p * lanes)));
            }
            result.intoArray(out, i);
        }
        return i;
    }

    /** `value` repeated in every byte of a long. */
    private static long everyByte(int value) {
        return (value & 0xffL) * 0x0101010101010101L;
    }

    /**
     * A bit permutation within each byte, as groups of output bits that move the same distance:
     * out = OR over groups of (in shifted by distance) AND mask. Shifting a whole 64-bit lane
     * moves each byte's bits within that byte wherever the mask keeps them.
     */
    record BitPermutation(int[] distances, long[] masks) {
        /**
         * Output bit k (1-based, most significant first, outWidth bits ending at bit outLow)
         * takes input bit table[k] (1-based, most significant first, of the inWidth bits ending at
         * bit inLow), as the spec writes its permutations.
         */
        static BitPermutation of(int[] table, int inWidth, int inLow, int outLow) {
            List<Integer> distances = new ArrayList<>();
            List<Long> masks = new ArrayList<>();
            for (int k = 0; k < table.length; k++) {
                int outBit = outLow + table.length - 1 - k;
                int inBit = inLow + inWidth - table[k];
                int distance = inBit - outBit; // > 0: shift right
                int group = distances.indexOf(distance);
                if (group < 0) {
                    distances.add(distance);
                    masks.add(0L);
                    group = distances.size() - 1;
                }
                masks.set(group, masks.get(group) | everyByte(1 << outBit));
            }
            if (distances.size() != 4 && distances.size() != 7) {
                throw new IllegalArgumentException("apply() is written for 4 or 7 groups, not " + distances.size());
            }
            return new BitPermutation(distances.stream().mapToInt(Integer::intValue).toArray(),
                    masks.stream().mapToLong(Long::longValue).toArray());
        }

        /**
         * Applies a permutation of seven groups (IP, IP⁻¹) or four (E/P, P4), written out: a
         * loop or a branch on the group count would carry vectors across it and box them, and a
         * method general enough for any count compiles too large for the JIT to inline.
         */
        LongVector apply(LongVector in) {
            LongVector out = moved(in, 0).or(moved(in, 1)).or(moved(in, 2)).or(moved(in, 3));
            if (distances.length == 4) {
                return out;
            }
            return out.or(moved(in, 4)).or(moved(in, 5)).or(moved(in, 6));
        }

        /**
         * The group's bits moved into place: a rotation of the whole lane by the distance (right
         * for > 0, left for < 0), so no branch on its sign; no kept bit ever wraps around a lane,
         * since every move stays inside its byte.
         */
        private LongVector moved(LongVector in, int group) {
            return in.lanewise(VectorOperators.ROR, distances[group] & 63).and(masks[group]);
        }
    }

    private static final BitPermutation IP = BitPermutation.of(SdesReference.IP, 8, 0, 0);
    private static final BitPermutation IP_INVERSE = BitPermutation.of(SdesReference.IP_INV, 8, 0, 0);
    /** E/P of the right nibble (R, bits 0-3) to a whole byte. */
    private static final BitPermutation EXPAND_PERMUTE = BitPermutation.of(SdesReference.EP, 4, 0, 0);
    /** P4 of S0 ‖ S1 (bits 0-3) straight into the left nibble (bits 4-7), where it meets L. */
    private static final BitPermutation P4_TO_LEFT = BitPermutation.of(SdesReference.P4, 4, 0, 4);
    private static final long LOW_NIBBLES = everyByte(0x0f);
    private static final long HIGH_NIBBLES = everyByte(0xf0);

    /** An S-box as a vector indexed by the whole 4-bit input (row = bits 1 and 4, column = bits 2 and 3). */
    private static ByteVector sBox(int[][] box) {
        byte[] byInput = new byte[SPECIES.length()];
        for (int input = 0; input < 16; input++) {
            byInput[input] = (byte) SdesReference.sbox(box, input);
        }
        return ByteVector.fromArray(SPECIES, byInput, 0);
    }

    private static final ByteVector S0 = sBox(SdesReference.S0);
    private static final ByteVector S1 = sBox(SdesReference.S1);

    /** f_K on every byte of `block`: L ^= P4(S0 ‖ S1 of E/P(R) ^ K), R unchanged. */
    private static LongVector feistel(LongVector block, long subkeyInEveryByte) {
        LongVector mixed = EXPAND_PERMUTE.apply(block.and(LOW_NIBBLES)).lanewise(VectorOperators.XOR,
                subkeyInEveryByte);
        ByteVector left4 = mixed.lanewise(VectorOperators.LSHR, 4).and(LOW_NIBBLES).reinterpretAsBytes();
        ByteVector right4 = mixed.and(LOW_NIBBLES).reinterpretAsBytes();
        LongVector s0 = left4.selectFrom(S0).reinterpretAsLongs();
        LongVector s1 = right4.selectFrom(S1).reinterpretAsLongs();
        LongVector sBoxes = s0.lanewise(VectorOperators.LSHL, 2).or(s1);
        return block.lanewise(VectorOperators.XOR, P4_TO_LEFT.apply(sBoxes));
    }

    private static LongVector swapHalves(LongVector block) {
        return block.lanewise(VectorOperators.LSHL, 4).and(HIGH_NIBBLES)
                .or(block.lanewise(VectorOperators.LSHR, 4).and(LOW_NIBBLES));
    }

    /**
     * Bytes per pass: each round runs as its own loop over a block that stays in L1. The whole
     * cipher in one loop body is more vector code than C2 inlines (NodeCountInliningCutoff),
     * and a vector that crosses a call the JIT did not inline is boxed on every call.
     */
    private static final int BLOCK = 4096;

    /** The bitwise cipher on plain[from, to): whole vectors in L1-sized blocks, the tail in `scalar`. */
    static void encryptBitwise(int k1, int k2, byte[] plain, byte[] out, int from, int to,
            SdesEcb.RangeCipher scalar) {
        long key1 = everyByte(k1);
        long key2 = everyByte(k2);
        byte[] block = new byte[BLOCK];
        int whole = from + SPECIES.loopBound(to - from);
        for (int start = from; start < whole; start += BLOCK) {
            int length = Math.min(BLOCK, whole - start);
            initialPermutationPass(plain, start, block, length);
            firstRoundPass(block, length, key1);
            secondRoundPass(block, length, key2);
            finalPermutationPass(block, out, start, length);
        }
        scalar.encrypt(plain, out, whole, to);
    }

    private static LongVector load(byte[] bytes, int at) {
        return ByteVector.fromArray(SPECIES, bytes, at).reinterpretAsLongs();
    }

    private static void store(LongVector vector, byte[] bytes, int at) {
        vector.reinterpretAsBytes().intoArray(bytes, at);
    }

    private static void initialPermutationPass(byte[] plain, int from, byte[] block, int length) {
        for (int i = 0; i < length; i += SPECIES.length()) {
            store(IP.apply(load(plain, from + i)), block, i);
        }
    }

    /** f_K1, then SW. */
    private static void firstRoundPass(byte[] block, int length, long key1) {
        for (int i = 0; i < length; i += SPECIES.length()) {
            store(swapHalves(feistel(load(block, i), key1)), block, i);
        }
    }

    private static void secondRoundPass(byte[] block, int length, long key2) {
        for (int i = 0; i < length; i += SPECIES.length()) {
            store(feistel(load(block, i), key2), block, i);
        }
    }

    private static void finalPermutationPass(byte[] block, byte[] out, int from, int length) {
        for (int i = 0; i < length; i += SPECIES.length()) {
            store(IP_INVERSE.apply(load(block, i)), out, from + i);
        }
    }
}
