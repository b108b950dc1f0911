// The bitwise form's AVX2 kernel on amd64 (sdesnibbles_amd64.s), chosen at run time from what the CPU reports.
package main

//go:noescape
func encryptNibbles(dst, src *byte, blocks int, tables *nibbleTables, streaming bool)

// nibblesCipher is the tuned bitwise form by AVX2 nibble lookups: the key schedule and the key's
// tables, then encryptNibbles over the 32-byte blocks; the head up to an aligned dst and the
// tail go through the masked kernel.
func nibblesCipher(key uint) encryptRange {
	k1, k2 := sdesSubkeys(key)
	tables := nibbleTablesOf(k1, k2)
	kernel := func(dst, src *byte, blocks int, streaming bool) {
		encryptNibbles(dst, src, blocks, tables, streaming)
	}
	edges := func(dst, src []byte) { encryptMasked(dst, src, k1, k2) }
	return func(dst, src []byte) { overVectorBlocks(dst, src, 32, edges, kernel) }
}
