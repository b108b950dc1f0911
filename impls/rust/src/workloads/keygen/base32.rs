//! RFC 4648 Base32, lower case, padded: the portable kernel's encoder, plain code of the RFC's
//! steps (the tuned encoders are in `tuned.rs`).

pub const ALPHABET: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

/// Characters of the Base32 text of `len` bytes, padding included.
pub fn encoded_len(len: usize) -> usize {
    len.div_ceil(5) * 8
}

/// The portable encoder, as the RFC reads: each group of 5 bytes is a 40-bit number whose
/// eight 5-bit fields, from the top, pick the characters; a short last group is padded with
/// zero bits and its unused characters are '='.
pub fn push_base32(data: &[u8], out: &mut String) {
    for group in data.chunks(5) {
        let mut bits = 0u64;
        for k in 0..5 {
            bits = (bits << 8) | *group.get(k).unwrap_or(&0) as u64;
        }
        let significant = (group.len() * 8).div_ceil(5);
        for position in 0..8 {
            if position < significant {
                out.push(ALPHABET[((bits >> (35 - 5 * position)) & 31) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
}

/// The portable encoder's text of `data` as a new String.
pub fn base32(data: &[u8]) -> String {
    let mut text = String::with_capacity(encoded_len(data.len()));
    push_base32(data, &mut text);
    text
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub const RFC4648_VECTORS: [(&str, &str); 7] = [
        ("", ""),
        ("f", "my======"),
        ("fo", "mzxq===="),
        ("foo", "mzxw6==="),
        ("foob", "mzxw6yq="),
        ("fooba", "mzxw6ytb"),
        ("foobar", "mzxw6ytboi======"),
    ];

    #[test]
    fn base32_rfc4648_vectors() {
        for (plain, encoded) in RFC4648_VECTORS {
            assert_eq!(base32(plain.as_bytes()), encoded, "base32 of {plain:?}");
        }
    }

    #[test]
    fn the_encoded_length_is_8_characters_per_started_group_of_5_bytes() {
        assert_eq!([encoded_len(0), encoded_len(1), encoded_len(5), encoded_len(6), encoded_len(1000)], [0, 8, 8, 16, 1600]);
    }
}
