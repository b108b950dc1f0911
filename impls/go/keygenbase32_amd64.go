// keygen's Base32 by AVX-512 VBMI or AVX2 on amd64 (keygenbase32_amd64.s), chosen at run time.
package main

//go:noescape
func base32VBMI(dst, src *byte, blocks int, tables *base32VBMITables)

//go:noescape
func base32AVX2(dst, src *byte, blocks int, tables *base32AVX2Tables)

// encodeBase32VBMI is the technique "avx512vbmi"; its 40-byte loads are masked, so the last
// block reads nothing past the key.
func encodeBase32VBMI(dst, src []byte) {
	encodeBase32Blocks(dst, src, func(dst, src *byte, blocks int) { base32VBMI(dst, src, blocks, &keygenBase32VBMI) })
}

// encodeBase32AVX2 is the technique "avx2"; its 16-byte loads end with the block at the latest.
func encodeBase32AVX2(dst, src []byte) {
	encodeBase32Blocks(dst, src, func(dst, src *byte, blocks int) { base32AVX2(dst, src, blocks, &keygenBase32AVX2) })
}
