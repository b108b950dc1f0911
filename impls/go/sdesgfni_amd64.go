// The bitwise form's GFNI kernel on amd64 (sdesgfni_amd64.s), chosen at run time from what the CPU reports.
package main

//go:noescape
func encryptGFNI(dst, src *byte, blocks int, k1, k2 byte, tables *gfniTables, streaming bool)

// gfniCipher is the tuned bitwise form by GFNI: the key schedule, then encryptGFNI over the
// 64-byte blocks; the head up to an aligned dst and the tail go through the masked kernel.
func gfniCipher(key uint) encryptRange {
	k1, k2 := sdesSubkeys(key)
	kernel := func(dst, src *byte, blocks int, streaming bool) {
		encryptGFNI(dst, src, blocks, byte(k1), byte(k2), &sdesGFNI, streaming)
	}
	edges := func(dst, src []byte) { encryptMasked(dst, src, k1, k2) }
	return func(dst, src []byte) { overVectorBlocks(dst, src, 64, edges, kernel) }
}
