// sdes-ecb's tuned techniques per cipher, fastest first: what each needs and how it works.
package main

// The tuned bitwise techniques, fastest first (docs/runtimes/go.md has the figures); sliced and
// masks are plain Go and run everywhere.
var sdesBitwiseTechniques = []technique[func(key uint) encryptRange]{
	{label: "gfni-avx512", needs: "GFNI, AVX-512 F and AVX-512 BW", cpuFlags: []string{"gfni", "avx512f", "avx512bw"},
		runs: hasGFNIAVX512, kernel: gfniCipher,
		detail: "Go asm VGF2P8AFFINEQB (GFNI + AVX-512): every permutation an 8x8 bit matrix, the S-boxes VPSHUFB, 64 bytes a step; streaming stores from 1 MiB"},
	{label: "avx2", needs: "AVX2", cpuFlags: []string{"avx2"}, runs: hasAVX2, kernel: nibblesCipher,
		detail: "Go asm VPSHUFB (AVX2): every permutation two 16-entry nibble tables OR'd (SW folded into IP^-1), E/P xor the subkey one table per output nibble, each S-box through P4 one, 12 lookups per 32 bytes; streaming stores from 1 MiB"},
	{label: "sliced", needs: "nothing", runs: everywhere, kernel: slicedCipher,
		detail: "bit-sliced S-DES, 64 bytes as 8 uint64 bit planes (plain Go)"},
	{label: "masks", needs: "nothing", runs: everywhere, kernel: maskedCipher,
		detail: "mask-and-shift permutations with packed S-box words, one byte a step (plain Go)"},
}

// The tuned table techniques, fastest first, each over the key's table (sdestable.go).
var sdesTableTechniques = []technique[func(table *[256]byte) encryptRange]{
	{label: "avx512vbmi", needs: "AVX-512 F, AVX-512 BW and AVX-512 VBMI", cpuFlags: []string{"avx512f", "avx512bw", "avx512vbmi"},
		runs: hasAVX512VBMI, kernel: lookupVBMIOver,
		detail: "Go asm VPERMI2B (AVX-512 VBMI): two 128-entry lookups and a merge by bit 7 per 64 bytes; streaming stores from 1 MiB"},
	{label: "avx2", needs: "AVX2", cpuFlags: []string{"avx2"}, runs: hasAVX2, kernel: lookupAVX2Over,
		detail: "Go asm VPSHUFB (AVX2): the table as 16 rows of 16 by the high nibble, 16 lookups per 32 bytes; streaming stores from 1 MiB"},
	{label: "go", needs: "nothing", runs: everywhere, kernel: lookupWordsOver,
		detail: "8 table lookups per 64-bit word (plain Go)"},
}
