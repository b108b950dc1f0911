// The table form's vector kernels on amd64, chosen at run time from what the CPU reports.
package main

import "unsafe"

//go:noescape
func lookupVBMI(dst, src *byte, blocks int, table *[256]byte, streaming bool)

//go:noescape
func lookupAVX2(dst, src *byte, blocks int, diffs *[16][32]byte, streaming bool)

// lookupVBMIOver is the technique "avx512vbmi" over the key's table.
func lookupVBMIOver(table *[256]byte) encryptRange {
	return func(dst, src []byte) { lookupVector(dst, src, table, 64, lookupVBMI) }
}

// lookupAVX2Over is the technique "avx2" over the key's table, cut into its rows (avx2Rows).
func lookupAVX2Over(table *[256]byte) encryptRange {
	diffs := avx2Rows(table)
	avx2 := func(dst, src *byte, blocks int, _ *[256]byte, streaming bool) {
		lookupAVX2(dst, src, blocks, diffs, streaming)
	}
	return func(dst, src []byte) { lookupVector(dst, src, table, 32, avx2) }
}

// lookupVector runs a table kernel of `block`-byte steps over the middle of the range (see
// overVectorBlocks), the portable word loop over its ends.
func lookupVector(dst, src []byte, table *[256]byte, block int,
	kernel func(dst, src *byte, blocks int, table *[256]byte, streaming bool)) {
	words := func(dst, src []byte) { lookupWords(dst, src, table) }
	overVectorBlocks(dst, src, block, words, func(dst, src *byte, blocks int, streaming bool) {
		kernel(dst, src, blocks, table, streaming)
	})
}

// overVectorBlocks runs a kernel of `block`-byte steps over the middle of the range: the head up
// to an aligned dst (non-temporal stores need one) and the tail shorter than a block go
// through `edges`. From streamFrom bytes on, the kernel writes with non-temporal stores.
func overVectorBlocks(dst, src []byte, block int, edges func(dst, src []byte),
	kernel func(dst, src *byte, blocks int, streaming bool)) {
	dst = dst[:len(src)]
	head := min(len(src), int(-uintptr(unsafe.Pointer(unsafe.SliceData(dst))))&(block-1))
	edges(dst[:head], src[:head])
	dst, src = dst[head:], src[head:]
	blocks := len(src) / block
	if blocks > 0 {
		kernel(&dst[0], &src[0], blocks, len(src) >= streamFrom)
	}
	done := blocks * block
	edges(dst[done:], src[done:])
}

// avx2Rows cuts the table into 16 rows of 16 (by the high nibble), each as its XOR difference
// from the row before within its half (rows 0 and 8 start afresh), each written twice because
// VPSHUFB looks up within each 16-byte lane.
func avx2Rows(table *[256]byte) *[16][32]byte {
	var diffs [16][32]byte
	for row := range 16 {
		for j := range 16 {
			d := table[row*16+j]
			if row%8 != 0 {
				d ^= table[(row-1)*16+j]
			}
			diffs[row][j], diffs[row][16+j] = d, d
		}
	}
	return &diffs
}
