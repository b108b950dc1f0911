package parbench.workloads;

import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * sdes-ecb's bitwise cipher with the Vector API, each permutation applied as a GF(2) matrix the
 * way a CPU without GFNI applies one: split by nibble. A bit permutation P is linear over GF(2),
 * so P(x) = P(low nibble of x) ^ P(high nibble of x << 4): two 16-entry tables per permutation,
 * each looked up by {@code selectFrom} (one {@code vpermb} per 64 bytes on AVX-512 VBMI). The
 * S-boxes are their 16-entry tables looked up the same way, and the subkeys are XORed in: every
 * byte still goes through IP, E/P, S0 and S1, P4, SW and IP⁻¹, step by step (Rust's kernel does
 * the same steps with one {@code vgf2p8affineqb} per permutation, which the Vector API lacks).
 * Two steps are fused where a table holds both: P4 into each S-box's 16 entries (an "SP-box", as
 * DES software has long done: P4 is linear), and SW into IP⁻¹'s matrix (their product is one
 * permutation).
 *
 * The tables are repeated every 16 lanes, so a lookup needs no mask: {@code selectFrom} wraps an
 * index to the vector's lanes, and whatever sits above bit 3 of the index (a neighbour byte's
 * bits after a 64-bit shift) only picks another copy of the same 16 entries.
 * Only loaded when the jdk.incubator.vector module is present (see SdesTechniques).
 */
final class SdesNibbleMatrices {
    private SdesNibbleMatrices() {}

    static final VectorSpecies<Byte> SPECIES = speciesFor(ByteVector.SPECIES_PREFERRED);

    /**
     * The preferred vectors, except 128 bits where those are 256: a JVM prefers 256 bits on a
     * CPU with AVX2 and no (usable) AVX-512, where C2 makes a 32-lane selectFrom of two vpshufb,
     * a lane swap and a blend, while a 16-lane one is a single vpshufb; measured 2026-12-02, 1 MiB
     * in cache, -XX:UseAVX=2: 0.461 ms at 256 bits, 0.325 ms at 128 (medians of 150). (With
     * AVX-512 VBMI a 256-bit JVM could use vpermb; it prefers 256 bits there only when told to.)
     */
    static VectorSpecies<Byte> speciesFor(VectorSpecies<Byte> preferred) {
        return preferred.vectorBitSize() == 256 ? ByteVector.SPECIES_128 : preferred;
    }

    static String describe() {
        return "Vector API, " + (SPECIES == ByteVector.SPECIES_PREFERRED ? "ByteVector.SPECIES_PREFERRED"
                : "ByteVector.SPECIES_128 (the preferred are " + ByteVector.SPECIES_PREFERRED.vectorBitSize() + "-bit)")
                + " (" + SPECIES.vectorBitSize() + "-bit, " + SPECIES.length()
                + " byte lanes), one byte per lane through every step: each permutation a GF(2) matrix applied "
                + "as two 16-entry nibble tables (SW folded into IP⁻¹'s), each S-box through P4 one 16-entry "
                + "table, all looked up by selectFrom (vpermb); scalar tails";
    }

    /** A 16-entry table repeated across every lane of a vector: entry n at lanes n, n + 16, …. */
    private static ByteVector repeated(int[] entries) {
        byte[] lanes = new byte[SPECIES.length()];
        for (int lane = 0; lane < lanes.length; lane++) {
            lanes[lane] = (byte) entries[lane % 16];
        }
        return ByteVector.fromArray(SPECIES, lanes, 0);
    }

    /** A byte-to-byte GF(2)-linear map as its two nibble tables: map(x) = low[x & 15] ^ high[x >> 4]. */
    record NibbleMatrix(ByteVector low, ByteVector high) {
        static NibbleMatrix of(java.util.function.IntUnaryOperator linearMap) {
            int[] low = new int[16];
            int[] high = new int[16];
            for (int nibble = 0; nibble < 16; nibble++) {
                low[nibble] = linearMap.applyAsInt(nibble) & 0xff;
                high[nibble] = linearMap.applyAsInt(nibble << 4) & 0xff;
            }
            return new NibbleMatrix(repeated(low), repeated(high));
        }

        ByteVector apply(ByteVector bytes) {
            ByteVector highNibbles = bytes.reinterpretAsLongs().lanewise(VectorOperators.LSHR, 4).reinterpretAsBytes();
            return bytes.selectFrom(low).lanewise(VectorOperators.XOR, highNibbles.selectFrom(high));
        }

        /** For a map that reads only the low nibble (E/P of R, P4 of the S-boxes' 4 bits). */
        ByteVector applyToLowNibble(ByteVector bytes) {
            return bytes.selectFrom(low);
        }
    }

    /** IP over the whole byte. */
    static final NibbleMatrix IP = NibbleMatrix.of(x -> SdesReference.permute(x, 8, SdesReference.IP));
    /**
     * IP⁻¹·SW, one permutation (the product of two is one): SW is never done on its own, f_K2
     * reads its R from the high half and XORs into the low one (see encrypt).
     */
    static final NibbleMatrix SWAP_THEN_IP_INVERSE =
            NibbleMatrix.of(x -> SdesReference.permute(((x & 0x0f) << 4) | ((x >> 4) & 0x0f), 8, SdesReference.IP_INV));
    /** E/P of R (the low nibble) to a whole byte. */
    static final NibbleMatrix EXPAND_PERMUTE = NibbleMatrix.of(x -> SdesReference.permute(x & 0x0f, 4, SdesReference.EP));

    /**
     * An S-box followed by P4, as DES software has long fused them ("SP-boxes"): P4 is linear,
     * so P4(S0(l4) ‖ S1(r4)) = P4(S0(l4) ‖ 00) ^ P4(00 ‖ S1(r4)), and each S-box's 16 entries
     * can hold its output already permuted into the left half. Indexed by the 4-bit input
     * (row = bits 1 and 4, column = bits 2 and 3).
     */
    private static ByteVector sBoxThenP4(int[][] box, int shift, int toHalf) {
        int[] byInput = new int[16];
        for (int input = 0; input < 16; input++) {
            byInput[input] = SdesReference.permute(SdesReference.sbox(box, input) << shift, 4, SdesReference.P4) << toHalf;
        }
        return repeated(byInput);
    }

    /** Into the left half (f_K1) and, for f_K2 before SW, into the right half that SW makes its left. */
    private static final ByteVector S0_P4_LEFT = sBoxThenP4(SdesReference.S0, 2, 4);
    private static final ByteVector S1_P4_LEFT = sBoxThenP4(SdesReference.S1, 0, 4);
    private static final ByteVector S0_P4_RIGHT = sBoxThenP4(SdesReference.S0, 2, 0);
    private static final ByteVector S1_P4_RIGHT = sBoxThenP4(SdesReference.S1, 0, 0);

    /**
     * f_K on every byte of `block`, whose R is the low half of `right`: the SP-boxes of
     * E/P(R) ^ subkey XORed into the block (their tables put them into the half that is L).
     */
    private static ByteVector feistel(ByteVector block, ByteVector right, ByteVector subkey, ByteVector s0, ByteVector s1) {
        ByteVector mixed = EXPAND_PERMUTE.applyToLowNibble(right).lanewise(VectorOperators.XOR, subkey);
        ByteVector leftIn = mixed.reinterpretAsLongs().lanewise(VectorOperators.LSHR, 4).reinterpretAsBytes();
        return block.lanewise(VectorOperators.XOR, leftIn.selectFrom(s0)).lanewise(VectorOperators.XOR, mixed.selectFrom(s1));
    }

    static ByteVector encrypt(ByteVector plain, ByteVector k1, ByteVector k2) {
        ByteVector block = IP.apply(plain);
        block = feistel(block, block, k1, S0_P4_LEFT, S1_P4_LEFT);
        // f_K2 after SW, without moving the halves: R is the high half (shifted down to index), L the low one.
        ByteVector high = block.reinterpretAsLongs().lanewise(VectorOperators.LSHR, 4).reinterpretAsBytes();
        block = feistel(block, high, k2, S0_P4_RIGHT, S1_P4_RIGHT);
        return SWAP_THEN_IP_INVERSE.apply(block);
    }

    /**
     * The bitwise cipher on plain[from, to): whole vectors here, the tail in `scalar`. One vector
     * per iteration: two (measured) made the body too large for C2 to inline every step, and
     * the vectors crossing the calls it left were boxed, 3-4x slower.
     */
    static void encryptBitwise(int k1, int k2, byte[] plain, byte[] out, int from, int to,
            SdesEcb.RangeCipher scalar) {
        ByteVector key1 = ByteVector.broadcast(SPECIES, (byte) k1);
        ByteVector key2 = ByteVector.broadcast(SPECIES, (byte) k2);
        int lanes = SPECIES.length();
        int whole = from + SPECIES.loopBound(to - from);
        for (int i = from; i < whole; i += lanes) {
            encrypt(ByteVector.fromArray(SPECIES, plain, i), key1, key2).intoArray(out, i);
        }
        scalar.encrypt(plain, out, whole, to);
    }
}
