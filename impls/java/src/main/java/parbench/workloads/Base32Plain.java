package parbench.workloads;

import java.nio.charset.StandardCharsets;

/**
 * keygen's portable encoder: RFC 4648 Base32, lower case, padded, in plain code (java.util has
 * Base64 but no Base32). Java has no unsigned byte, so each input byte is widened with {@code & 0xff}.
 */
final class Base32Plain {
    private Base32Plain() {}

    static final byte[] ALPHABET = "abcdefghijklmnopqrstuvwxyz234567".getBytes(StandardCharsets.US_ASCII);

    /** Length of the padded encoding of `length` bytes: 8 characters per started 5-byte group. */
    static int encodedLength(int length) {
        return (length + 4) / 5 * 8;
    }

    /**
     * A bit buffer that takes a byte at a time and gives a character for every 5 bits, the last
     * bits filled with zeros to a character, then '=' to a multiple of 8 characters.
     */
    static void encodeInto(byte[] data, byte[] out) {
        int buffer = 0;
        int bits = 0;
        int written = 0;
        for (byte b : data) {
            buffer = buffer << 8 | b & 0xff;
            bits += 8;
            while (bits >= 5) {
                bits -= 5;
                out[written++] = ALPHABET[buffer >>> bits & 31];
            }
        }
        if (bits > 0) {
            out[written++] = ALPHABET[buffer << (5 - bits) & 31];
        }
        while (written % 8 != 0) {
            out[written++] = '=';
        }
    }

    static String encode(byte[] data) {
        byte[] out = new byte[encodedLength(data.length)];
        encodeInto(data, out);
        return new String(out, StandardCharsets.ISO_8859_1);
    }
}
