package parbench.workloads;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * sdes-ecb's table form with the Vector API: the key's 256-byte table is cut into pieces of two
 * vectors each, and every input vector looks its bytes up with the two-vector selectFrom (one
 * vpermi2b per pair on AVX-512 VBMI), the pairs' results blended by the index's high bits. (The
 * bitwise form is SdesNibbleMatrices.)
 * Only loaded when the jdk.incubator.vector module is present (see SdesTechniques).
 */
final class SdesVectors {
    private SdesVectors() {}

    static final VectorSpecies<Byte> SPECIES = ByteVector.SPECIES_PREFERRED;

    static String describe() {
        return "Vector API, ByteVector.SPECIES_PREFERRED (" + SPECIES.vectorBitSize() + "-bit, " + SPECIES.length()
                + " byte lanes), " + 256 / (2 * SPECIES.length()) + " two-vector selectFrom lookups per vector; "
                + "scalar tails";
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
}
