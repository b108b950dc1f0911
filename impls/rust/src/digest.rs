//! The shared checksum helpers of workloads/README.md: FNV-1a 64, the order-free digest, SplitMix64.

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

pub fn fnv1a64(data: &[u8]) -> u64 {
    data.iter().fold(FNV_OFFSET, |h, &byte| (h ^ byte as u64).wrapping_mul(FNV_PRIME))
}

/// The sum mod 2^64 of fnv1a64 over a set of strings; addition commutes, so partial digests
/// from workers that finish in any order combine with `add`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OrderFreeDigest(pub u64);

impl OrderFreeDigest {
    pub fn add_item(&mut self, item: &[u8]) {
        self.0 = self.0.wrapping_add(fnv1a64(item));
    }

    pub fn add(self, other: OrderFreeDigest) -> OrderFreeDigest {
        OrderFreeDigest(self.0.wrapping_add(other.0))
    }

    pub fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }
}

/// SplitMix64 bytes(seed, index, n) written into `out` (n = out.len()).
pub fn splitmix64_fill(seed: u64, index: u64, out: &mut [u8]) {
    let mut state = seed.wrapping_add(index.wrapping_mul(GOLDEN_GAMMA));
    for chunk in out.chunks_mut(8) {
        state = state.wrapping_add(GOLDEN_GAMMA);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        chunk.copy_from_slice(&z.to_le_bytes()[..chunk.len()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a64_of_empty_is_the_offset() {
        assert_eq!(format!("{:016x}", fnv1a64(b"")), "cbf29ce484222325");
    }

    #[test]
    fn fnv1a64_of_a() {
        assert_eq!(format!("{:016x}", fnv1a64(b"a")), "af63dc4c8601ec8c");
    }

    #[test]
    fn splitmix64_bytes_seed1_index0_16() {
        let mut out = [0u8; 16];
        splitmix64_fill(1, 0, &mut out);
        let hex: String = out.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(hex, "c15c0289ec2d0a9167ec8e65a18debbe");
    }

    #[test]
    fn order_free_digest_ignores_order() {
        let mut forward = OrderFreeDigest::default();
        let mut backward = OrderFreeDigest::default();
        for item in [&b"x"[..], b"yz", b""] {
            forward.add_item(item);
        }
        for item in [&b""[..], b"yz", b"x"] {
            backward.add_item(item);
        }
        assert_eq!(forward, backward);
    }
}
