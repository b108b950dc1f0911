// The constants of the GFNI bitwise kernel (sdesgfni_amd64.s): the cipher's permutations as bit matrices.
package main

// Every permutation of S-DES (IP, E/P, P4, SW, IP⁻¹) moves bits within a byte, so it is an 8×8
// bit matrix that VGF2P8AFFINEQB applies to 64 bytes at once: output bit i of a byte is the
// parity of (matrix byte 7 − i) AND the input byte, so that row holds the one input bit that
// output bit i takes. The subkeys are XORed in, and S0 and S1 are the spec's 16-entry tables
// looked up by VPSHUFB per 4-bit half: the cipher is computed step by step for every byte, with
// no table of the whole cipher.

// gfniTables is what the kernel loads once per call, at the offsets its assembly reads (0, 64,
// then 128 + 8·i for the matrices): s0 and s1 are the S-boxes by 4-bit input (S0's 2 bits in
// bits 3–2, S1's in 1–0), once per 128-bit lane.
type gfniTables struct {
	s0, s1                        [64]byte
	ip, ep, p4ToLeft, swap, ipInv uint64
}

var sdesGFNI = gfniTables{
	s0: sboxByInput(&sdesS0, 2), s1: sboxByInput(&sdesS1, 0),
	ip: permutationMatrix(sdesIP, 8, 8), ipInv: permutationMatrix(sdesIPInv, 8, 8),
	// E/P reads the right half (the low 4 bits) and fills the byte.
	ep: permutationMatrix(sdesEP, 4, 8),
	// P4 reads the S-boxes' 4 bits and writes the left half, where f_K XORs it into L.
	p4ToLeft: permutationMatrix(sdesP4, 4, 8),
	swap:     permutationMatrix([]uint{5, 6, 7, 8, 1, 2, 3, 4}, 8, 8),
}

// permutationMatrix is VGF2P8AFFINEQB's matrix for a permutation table: table[k] is the input
// position (1 = the most significant of inWidth bits) of output position k + 1; output position 1
// is bit outTop − 1.
func permutationMatrix(table []uint, inWidth, outTop uint) uint64 {
	var matrix uint64
	for k, position := range table {
		outBit := outTop - 1 - uint(k)
		matrix |= uint64(1) << (inWidth - position) << (8 * (7 - outBit))
	}
	return matrix
}

// sboxByInput is an S-box's entries by 4-bit input, shifted left by shift, repeated in each of
// the four 16-byte lanes VPSHUFB looks up within.
func sboxByInput(box *[4][4]uint, shift uint) [64]byte {
	var entries [64]byte
	for at := range entries {
		entries[at] = byte(sbox(box, uint(at%16)) << shift)
	}
	return entries
}
