//! Which technique the tuned sdes-ecb kernel runs, per cipher, fastest first: the first this
//! CPU runs, or the one `PARBENCH_SDES_TECHNIQUE` names (`crate::technique`). Each list ends
//! with the reference procedure's loops, which run everywhere.

use super::portable;
use super::{BitwiseKernel, CipherForm, TableKernel};
use crate::protocol::Outcome;
use crate::technique::{self, everywhere, Technique};

pub const ENVIRONMENT_VARIABLE: &str = "PARBENCH_SDES_TECHNIQUE";

/// The label of the techniques that are the portable kernel's loops.
pub const REFERENCE: &str = "reference";

fn reference_bitwise(k1: u8, k2: u8, plain: &[u8], out: &mut [u8], _stream: bool) {
    portable::encrypt_bitwise(k1 as u16, k2 as u16, plain, out);
}

fn reference_table(table: &[u8; 256], plain: &[u8], out: &mut [u8], _stream: bool) {
    portable::encrypt_table(table, plain, out);
}

const REFERENCE_BITWISE: Technique<BitwiseKernel> = Technique {
    label: REFERENCE,
    detail: "the reference procedure's loops, one byte at a time (no SIMD technique of this kernel runs here)",
    needs: "nothing",
    cpuinfo: &[],
    available: everywhere,
    kernel: reference_bitwise,
};

const REFERENCE_TABLE: Technique<TableKernel> = Technique {
    label: REFERENCE,
    detail: "the key's 256-byte table looked up one byte at a time (no SIMD technique of this kernel runs here)",
    needs: "nothing",
    cpuinfo: &[],
    available: everywhere,
    kernel: reference_table,
};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::nibble::{avx2, sse41};
    use super::super::tuned::{bitwise_gfni_avx512, has_gfni_avx512, has_avx512vbmi, table_avx512vbmi};
    use super::*;

    fn has_avx2() -> bool {
        is_x86_feature_detected!("avx2")
    }

    fn has_sse41() -> bool {
        is_x86_feature_detected!("ssse3") && is_x86_feature_detected!("sse4.1")
    }

    pub static BITWISE: [Technique<BitwiseKernel>; 4] = [
        Technique {
            label: "gfni-avx512",
            detail: "IP, E/P, P4, SW and IP^-1 as GF(2) bit matrices (GFNI vgf2p8affineqb), the subkeys XORed, S0/S1 by vpshufb, 64 bytes a step with AVX-512; non-temporal stores from 4 MiB of output",
            needs: "GFNI, AVX-512 F and AVX-512 BW",
            cpuinfo: &["gfni", "avx512f", "avx512bw"],
            available: has_gfni_avx512,
            kernel: bitwise_gfni_avx512,
        },
        Technique {
            label: "avx2",
            detail: "every byte permutation (IP; SW and IP^-1 as one) two 16-entry vpshufb nibble tables OR'd, E/P with the subkey one table of R, S0/S1 through P4 one table each, 32 bytes a step with AVX2; non-temporal stores from 4 MiB of output",
            needs: "AVX2",
            cpuinfo: &["avx2"],
            available: has_avx2,
            kernel: avx2::bitwise,
        },
        Technique {
            label: "sse4.1",
            detail: "the avx2 technique's nibble tables with 128-bit pshufb, 16 bytes a step (SSSE3/SSE4.1); non-temporal stores from 4 MiB of output",
            needs: "SSSE3 and SSE4.1",
            cpuinfo: &["ssse3", "sse4_1"],
            available: has_sse41,
            kernel: sse41::bitwise,
        },
        REFERENCE_BITWISE,
    ];

    pub static TABLE: [Technique<TableKernel>; 4] = [
        Technique {
            label: "avx512-vbmi",
            detail: "the key's table in four zmm registers, looked up 64 bytes a step by AVX-512 VBMI vpermi2b; non-temporal stores from 4 MiB of output",
            needs: "AVX-512 F, BW and VBMI",
            cpuinfo: &["avx512f", "avx512bw", "avx512vbmi"],
            available: has_avx512vbmi,
            kernel: table_avx512vbmi,
        },
        Technique {
            label: "avx2",
            detail: "the key's table as 16 rows looked up by the low nibble with vpshufb, the high nibble's row kept by a tree of 14 vpblendvb and an OR, 32 bytes a step with AVX2; non-temporal stores from 4 MiB of output",
            needs: "AVX2",
            cpuinfo: &["avx2"],
            available: has_avx2,
            kernel: avx2::table_lookup,
        },
        Technique {
            label: "sse4.1",
            detail: "the avx2 technique's rows and blend tree with 128-bit pshufb and pblendvb, 16 bytes a step (SSSE3/SSE4.1); non-temporal stores from 4 MiB of output",
            needs: "SSSE3 and SSE4.1",
            cpuinfo: &["ssse3", "sse4_1"],
            available: has_sse41,
            kernel: sse41::table_lookup,
        },
        REFERENCE_TABLE,
    ];
}

#[cfg(target_arch = "x86_64")]
pub use x86::{BITWISE, TABLE};

#[cfg(not(target_arch = "x86_64"))]
pub static BITWISE: [Technique<BitwiseKernel>; 1] = [REFERENCE_BITWISE];

#[cfg(not(target_arch = "x86_64"))]
pub static TABLE: [Technique<TableKernel>; 1] = [REFERENCE_TABLE];

fn what(form: CipherForm) -> &'static str {
    match form {
        CipherForm::Bitwise => "the bitwise cipher",
        CipherForm::Table => "the table cipher",
    }
}

/// The techniques of `form`'s tuned kernel as `asked` (a label, or `None` for the fastest).
#[derive(Clone, Copy)]
pub struct Chosen {
    pub bitwise: &'static Technique<BitwiseKernel>,
    pub table: &'static Technique<TableKernel>,
}

impl Chosen {
    /// The technique `asked` names for `form`, the fastest for the other form (the table
    /// cipher makes its key's table with the bitwise kernel).
    pub fn of(form: CipherForm, asked: Option<&str>) -> Outcome<Chosen> {
        let (bitwise_asked, table_asked) = match form {
            CipherForm::Bitwise => (asked, None),
            CipherForm::Table => (None, asked),
        };
        Ok(Chosen {
            bitwise: technique::choose(&BITWISE, bitwise_asked, ENVIRONMENT_VARIABLE, what(form))?,
            table: technique::choose(&TABLE, table_asked, ENVIRONMENT_VARIABLE, what(form))?,
        })
    }

    /// As the environment asks.
    pub fn from_environment(form: CipherForm) -> Outcome<Chosen> {
        Chosen::of(form, technique::asked(ENVIRONMENT_VARIABLE).as_deref())
    }

    /// The fastest of each that this CPU runs.
    pub fn fastest() -> Chosen {
        Chosen::of(CipherForm::Bitwise, None).expect("the fastest always exists")
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    #[test]
    fn the_fastest_is_the_widest_path_this_cpu_has() {
        // Detected here on its own, so a list in the wrong order, or a detection that misses
        // what the CPU has, does not leave the tuned kernel on a slower path unnoticed.
        let has = |feature: &str| match feature {
            "avx512" => is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512bw"),
            "avx2" => is_x86_feature_detected!("avx2"),
            _ => is_x86_feature_detected!("ssse3") && is_x86_feature_detected!("sse4.1"),
        };
        let narrower = if has("avx2") { "avx2" } else if has("sse4.1") { "sse4.1" } else { REFERENCE };
        let bitwise = if has("avx512") && is_x86_feature_detected!("gfni") { "gfni-avx512" } else { narrower };
        let table = if has("avx512") && is_x86_feature_detected!("avx512vbmi") { "avx512-vbmi" } else { narrower };
        let chosen = Chosen::fastest();
        assert_eq!((chosen.bitwise.label, chosen.table.label), (bitwise, table));
    }
}
