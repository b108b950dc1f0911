// The constants of the AVX2 bitwise kernel (sdesnibbles_amd64.s): every step of S-DES as 16-entry nibble tables.
package main

// VPSHUFB looks 32 bytes up at once in a 16-entry table (one per 128-bit lane), so each step
// of the cipher becomes a lookup by 4-bit input. A permutation of a byte is linear over GF(2):
// P(x) = P(low nibble) | P(high nibble), two lookups OR'd. E/P reads only the right half, so
// E/P xor K is one table of R per output nibble (the subkey folded in: the l4 for S0, the r4
// for S1); each S-box is one table whose entry is its 2 bits already through P4 (P4 of S0 ‖ S1
// is P4 of S0's bits OR P4 of S1's, the two being disjoint). SW is folded away: round 2 reads
// the left half and XORs into the right, so its block is SW of the spec's, and the last table
// pair is IP⁻¹ after SW. Being linear, that IP⁻¹ also goes through round 2's XOR: IP⁻¹(L ‖ R ^ f)
// = IP⁻¹(L ‖ R) ^ IP⁻¹(0 ‖ f), so round 2's S-box tables hold their bits through P4 and IP⁻¹,
// and the last step XORs them into IP⁻¹ of the block as it came out of round 1. Every byte still
// goes IP, f_K1, SW, f_K2, IP⁻¹ in 12 lookups: there is no table of the whole cipher, and the
// tables are built from the spec's position tables by the portable kernel's permute and sbox.

// nibbleTables is what encryptNibbles loads once per call, at the offsets its assembly reads
// (32 bytes apart, each 16-entry table written twice, once per lane).
type nibbleTables struct {
	ipLow, ipHigh          [32]byte // IP by the low, the high nibble
	ep1Left, ep1Right      [32]byte // E/P(R) xor K1: its left nibble (S0's input), its right (S1's)
	s0ToLeft, s1ToLeft     [32]byte // P4 of an S-box's bits, in the left half (round 1)
	ep2Left, ep2Right      [32]byte // E/P(L) xor K2, round 2 reading the unswapped left half
	s0ToOutput, s1ToOutput [32]byte // round 2's: P4 of an S-box's bits in the right half, through IP⁻¹ after SW
	ipInvLow, ipInvHigh    [32]byte // IP⁻¹ after SW, by the low, the high nibble
}

// nibbleTablesOf is the key's tables: the key-free ones from sdesNibbleSteps, the subkeys
// folded into the E/P tables (part of the key schedule, so inside the timed region).
func nibbleTablesOf(k1, k2 uint) *nibbleTables {
	tables := sdesNibbleSteps
	for r := range uint(16) {
		expanded := permute(r, 4, sdesEP)
		tables.ep1Left[r], tables.ep1Right[r] = byte((expanded^k1)>>4), byte((expanded^k1)&0xf)
		tables.ep2Left[r], tables.ep2Right[r] = byte((expanded^k2)>>4), byte((expanded^k2)&0xf)
	}
	for _, table := range []*[32]byte{&tables.ep1Left, &tables.ep1Right, &tables.ep2Left, &tables.ep2Right} {
		copy(table[16:], table[:16])
	}
	return &tables
}

// sdesNibbleSteps holds the tables that do not depend on the key.
var sdesNibbleSteps = func() nibbleTables {
	swap := func(b uint) uint { return (b&0xf)<<4 | b>>4 }
	var t nibbleTables
	t.ipLow, t.ipHigh = nibblesOf(func(b uint) uint { return permute(b, 8, sdesIP) })
	t.ipInvLow, t.ipInvHigh = nibblesOf(func(b uint) uint { return permute(swap(b), 8, sdesIPInv) })
	t.s0ToLeft = laneTable(func(n uint) uint { return permute(sbox(&sdesS0, n)<<2, 4, sdesP4) << 4 })
	t.s1ToLeft = laneTable(func(n uint) uint { return permute(sbox(&sdesS1, n), 4, sdesP4) << 4 })
	toOutput := func(right uint) uint { return permute(swap(right), 8, sdesIPInv) }
	t.s0ToOutput = laneTable(func(n uint) uint { return toOutput(permute(sbox(&sdesS0, n)<<2, 4, sdesP4)) })
	t.s1ToOutput = laneTable(func(n uint) uint { return toOutput(permute(sbox(&sdesS1, n), 4, sdesP4)) })
	return t
}()

// nibblesOf splits a linear map of bytes into its tables by the low and by the high nibble.
func nibblesOf(linear func(b uint) uint) (low, high [32]byte) {
	return laneTable(linear), laneTable(func(n uint) uint { return linear(n << 4) })
}

// laneTable is f of 0..15, once in each 16-byte lane VPSHUFB looks up within.
func laneTable(f func(n uint) uint) [32]byte {
	var table [32]byte
	for n := range uint(16) {
		table[n], table[n+16] = byte(f(n)), byte(f(n))
	}
	return table
}
