package parbench.workloads;

/**
 * sdes-ecb's portable kernel: the reference procedure of docs/workloads/sdes-ecb.md, line for
 * line, with its tables as int arrays and its S-boxes as int[4][4]. Java has no unsigned byte,
 * so a plaintext byte is widened with {@code & 0xff} and a ciphertext byte narrowed with a cast.
 */
final class SdesReference {
    private SdesReference() {}

    static final int[] P10 = {3, 5, 2, 7, 4, 10, 1, 9, 8, 6};
    static final int[] P8 = {6, 3, 7, 4, 8, 5, 10, 9};
    static final int[] IP = {2, 6, 3, 1, 4, 8, 5, 7};
    static final int[] IP_INV = {4, 1, 3, 5, 7, 2, 8, 6};
    static final int[] EP = {4, 1, 2, 3, 2, 3, 4, 1};
    static final int[] P4 = {2, 4, 3, 1};
    static final int[][] S0 = {{1, 0, 3, 2}, {3, 2, 1, 0}, {0, 2, 1, 3}, {3, 1, 3, 2}};
    static final int[][] S1 = {{0, 1, 2, 3}, {2, 0, 1, 3}, {3, 0, 1, 0}, {2, 1, 0, 3}};

    /** The table's positions count from 1 = the most significant of `width` bits. */
    static int permute(int value, int width, int[] table) {
        int out = 0;
        for (int position : table) {
            out = (out << 1) | ((value >> (width - position)) & 1);
        }
        return out;
    }

    /** A left rotation of a 5-bit half. */
    static int rotate5(int half, int by) {
        return ((half << by) | (half >> (5 - by))) & 0b11111;
    }

    /** K1 and K2 of a 10-bit key, as {K1, K2}. */
    static int[] subkeys(int key) {
        int p10 = permute(key, 10, P10);
        int left = rotate5(p10 >> 5, 1);
        int right = rotate5(p10 & 0b11111, 1);
        int k1 = permute((left << 5) | right, 10, P8);
        left = rotate5(left, 2);
        right = rotate5(right, 2);
        int k2 = permute((left << 5) | right, 10, P8);
        return new int[] {k1, k2};
    }

    /** Row = bits 1 and 4, column = bits 2 and 3 of the 4-bit input. */
    static int sbox(int[][] box, int bits4) {
        int row = (((bits4 >> 3) & 1) << 1) | (bits4 & 1);
        int column = (bits4 >> 1) & 0b11;
        return box[row][column];
    }

    /** block: 8 bits, left = the high 4, right = the low 4. */
    static int fK(int block, int subkey) {
        int left = block >> 4;
        int right = block & 0xf;
        int mixed = permute(right, 4, EP) ^ subkey;
        int s = (sbox(S0, mixed >> 4) << 2) | sbox(S1, mixed & 0xf);
        return ((left ^ permute(s, 4, P4)) << 4) | right;
    }

    static int encryptByte(int k1, int k2, int plain) {
        int block = fK(permute(plain, 8, IP), k1);
        int swapped = ((block & 0xf) << 4) | (block >> 4);
        return permute(fK(swapped, k2), 8, IP_INV);
    }

    /** The bitwise cipher on one chunk, [from, to), under subkeys k1 and k2. */
    static void encryptBitwise(int k1, int k2, byte[] input, byte[] output, int from, int to) {
        for (int i = from; i < to; i++) {
            output[i] = (byte) encryptByte(k1, k2, input[i] & 0xff);
        }
    }

    /** The key's 256-byte table: every byte value encrypted once. */
    static byte[] table(int k1, int k2) {
        byte[] table = new byte[256];
        for (int b = 0; b <= 255; b++) {
            table[b] = (byte) encryptByte(k1, k2, b);
        }
        return table;
    }

    /** The table cipher on one chunk, [from, to). */
    static void lookUp(byte[] table, byte[] input, byte[] output, int from, int to) {
        for (int i = from; i < to; i++) {
            output[i] = table[input[i] & 0xff];
        }
    }
}
