// sdes-ecb's tuned per-byte kernel: the permutations as hand-derived masks and shifts, the S-boxes packed in words.
package main

// The same per-byte algorithm as the portable encryptByte, hand-compiled for gc: each
// permutation moves the bits that travel the same distance together (one mask and one shift
// per distance, worked out from the spec's tables; the tests hold each equal to permute), and
// each S-box is one word holding its 16 entries by 4-bit input, so a lookup is a shift of a
// register. gc neither unrolls the portable loop over a table nor folds the constant table into
// it (docs/runtimes/go.md), so this form is several times faster than the portable one; it is
// the tuned class's `--bitwise-kernel masks`, and it derives the tuned table kernels' table.

var sdesS0Packed, sdesS1Packed = packSbox(&sdesS0), packSbox(&sdesS1)

// packSbox puts an S-box in one word, the entry for 4-bit input n (row and column of n, as the
// spec reads them) in bits 2n and 2n+1.
func packSbox(box *[4][4]uint) uint {
	var packed uint
	for in := range uint(16) {
		packed |= sbox(box, in) << (2 * in)
	}
	return packed
}

// sboxLookup is the 2-bit entry of a packed S-box for a 4-bit input (the mask tells gc the shift
// is under 64, so it emits no check for larger shifts).
func sboxLookup(packed, in uint) uint { return packed >> (2 * in & 63) & 0b11 }

// substitute is S0 of the left and S1 of the right nibble of E/P(R) xor K, as S0 ‖ S1.
func substitute(mixed, s0, s1 uint) uint {
	return sboxLookup(s0, mixed>>4)<<2 | sboxLookup(s1, mixed&0xf)
}

// encryptMasked is IP, f_K1, SW, f_K2 and IP⁻¹ for each byte. The loop names each step instead
// of calling a function per byte or per round: gc inlines only functions that cost at most 80
// (a whole round costs 90, `-gcflags=-m=2`), and a call in the loop spills every live
// register, since Go's ABI has no callee-saved ones. Written so, the loop is about 148
// instructions a byte, all in registers.
func encryptMasked(dst, src []byte, k1, k2 uint) {
	s0, s1 := sdesS0Packed, sdesS1Packed // locals, so they stay in registers for the loop
	dst = dst[:len(src)]
	for i, plain := range src {
		block := initialPermute(uint(plain))
		left, right := block>>4, block&0xf
		left ^= permute4(substitute(expandPermute(right)^k1, s0, s1)) // f_K1
		left, right = right, left                                     // SW
		left ^= permute4(substitute(expandPermute(right)^k2, s0, s1)) // f_K2
		dst[i] = byte(inversePermute(left<<4 | right))
	}
}

// initialPermute is IP = 2 6 3 1 4 8 5 7.
func initialPermute(b uint) uint {
	return (b&0x40)<<1 | (b&0x04)<<4 | b&0x20 | (b&0x80)>>3 | (b&0x12)>>1 | (b&0x01)<<2 | (b&0x08)>>2
}

// inversePermute is IP⁻¹ = 4 1 3 5 7 2 8 6.
func inversePermute(b uint) uint {
	return (b&0x10)<<3 | (b&0x80)>>1 | b&0x20 | (b&0x09)<<1 | (b&0x02)<<2 | (b&0x40)>>4 | (b&0x04)>>2
}

// expandPermute is E/P = 4 1 2 3 2 3 4 1 over a 4-bit half.
func expandPermute(r uint) uint {
	return (r&1)<<7 | (r&0xe)<<3 | (r&7)<<1 | r>>3
}

// permute4 is P4 = 2 4 3 1.
func permute4(s uint) uint {
	return (s&4)<<1 | (s&1)<<2 | s&2 | s>>3
}

// maskedCipher is the tuned bitwise kernel `masks`.
func maskedCipher(key uint) encryptRange {
	k1, k2 := sdesSubkeys(key)
	return func(dst, src []byte) { encryptMasked(dst, src, k1, k2) }
}

// maskedTable is the key's table through the masked kernel, for the tuned table kernels.
func maskedTable(key uint) *[256]byte {
	k1, k2 := sdesSubkeys(key)
	var every, table [256]byte
	for b := range every {
		every[b] = byte(b)
	}
	encryptMasked(table[:], every[:], k1, k2)
	return &table
}
