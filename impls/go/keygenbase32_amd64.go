// keygen's Base32 by AVX-512 VBMI on amd64 (keygenbase32_amd64.s), chosen at run time.
package main

import "golang.org/x/sys/cpu"

//go:noescape
func base32VBMI(dst, src *byte, blocks int, tables *base32VBMITables)

// base32Kernels lists the tuned Base32 encoders this CPU runs, fastest first.
func base32Kernels() []string {
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI {
		return []string{"avx512vbmi", "go"}
	}
	return []string{"go"}
}

// encodeBase32VBMI encodes src into dst (base32Lower.EncodedLen(len(src)) bytes): 40-byte
// blocks in assembly, the rest (a whole number of 5-byte groups before it, so the groups line
// up) and its padding by encoding/base32.
func encodeBase32VBMI(dst, src []byte) {
	blocks := len(src) / 40
	if blocks > 0 {
		_ = dst[64*blocks-1] // the assembly writes 64 bytes a block
		base32VBMI(&dst[0], &src[0], blocks, &keygenBase32VBMI)
	}
	base32Lower.Encode(dst[64*blocks:], src[40*blocks:])
}
