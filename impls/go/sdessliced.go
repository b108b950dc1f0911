// sdes-ecb's tuned bitwise kernel: S-DES bit-sliced, 64 bytes at a time as 8 uint64 bit planes.
package main

import "encoding/binary"

// A bit plane holds one bit position of 64 bytes: bit i of plane p is bit p of byte i. In
// this form every permutation of the spec is a renaming of planes (no instructions at all),
// the key is a mask per plane, and each S-box is a few AND/XOR selections per output bit, so
// one pass of about 150 word operations encrypts 64 bytes. It is an alternative algorithm
// (bit-slicing), hence the tuned class; the portable kernel is encryptBitwise, byte by byte.

// slicedBlock is 64 bytes as planes indexed by the spec's bit position minus 1 (index 0 is
// position 1, the most significant bit of each byte).
type slicedBlock [8]uint64

// slicedSubkey is a subkey as a mask per position: all ones where the key bit is 1.
type slicedSubkey [8]uint64

func sliceSubkey(k uint) slicedSubkey {
	var masks slicedSubkey
	for i := range masks {
		masks[i] = -uint64((k >> (7 - i)) & 1)
	}
	return masks
}

// slicedSbox is one S-box as masks: entry[row][column] for each of its two output bits.
type slicedSbox struct{ hi, lo [4][4]uint64 }

func sliceSbox(box *[4][4]uint) slicedSbox {
	var s slicedSbox
	for row := range 4 {
		for col := range 4 {
			s.hi[row][col] = -uint64(box[row][col] >> 1 & 1)
			s.lo[row][col] = -uint64(box[row][col] & 1)
		}
	}
	return s
}

var slicedS0, slicedS1 = sliceSbox(&sdesS0), sliceSbox(&sdesS1)

// pick is the bit-sliced selection: y where s is 1, x where it is 0.
func pick(s, x, y uint64) uint64 { return x ^ (s & (x ^ y)) }

// lookup4x4 selects entry[row][column] per bit, row = (a, d), column = (b, c): the spec's rule.
func lookup4x4(entry *[4][4]uint64, a, b, c, d uint64) uint64 {
	var rows [4]uint64
	for row := range 4 {
		e := &entry[row]
		rows[row] = pick(b, pick(c, e[0], e[1]), pick(c, e[2], e[3]))
	}
	return pick(a, pick(d, rows[0], rows[1]), pick(d, rows[2], rows[3]))
}

// slicedF is f_K on planes: returns L xor P4(S0 ‖ S1 of E/P(R) xor K).
func slicedF(l, r [4]uint64, k *slicedSubkey) [4]uint64 {
	// E/P = 4 1 2 3 2 3 4 1
	e := [8]uint64{r[3] ^ k[0], r[0] ^ k[1], r[1] ^ k[2], r[2] ^ k[3],
		r[1] ^ k[4], r[2] ^ k[5], r[3] ^ k[6], r[0] ^ k[7]}
	s0hi := lookup4x4(&slicedS0.hi, e[0], e[1], e[2], e[3])
	s0lo := lookup4x4(&slicedS0.lo, e[0], e[1], e[2], e[3])
	s1hi := lookup4x4(&slicedS1.hi, e[4], e[5], e[6], e[7])
	s1lo := lookup4x4(&slicedS1.lo, e[4], e[5], e[6], e[7])
	// P4 = 2 4 3 1 over (s0hi, s0lo, s1hi, s1lo)
	return [4]uint64{l[0] ^ s0lo, l[1] ^ s1lo, l[2] ^ s1hi, l[3] ^ s0hi}
}

// encryptSliced runs IP, f_K1, SW, f_K2, IP⁻¹ on 64 bytes at once.
func encryptSliced(p *slicedBlock, k1, k2 *slicedSubkey) slicedBlock {
	// IP = 2 6 3 1 4 8 5 7
	left := [4]uint64{p[1], p[5], p[2], p[0]}
	right := [4]uint64{p[3], p[7], p[4], p[6]}
	left = slicedF(left, right, k1)
	left, right = right, left // SW
	left = slicedF(left, right, k2)
	b := [8]uint64{left[0], left[1], left[2], left[3], right[0], right[1], right[2], right[3]}
	// IP⁻¹ = 4 1 3 5 7 2 8 6
	return slicedBlock{b[3], b[0], b[2], b[4], b[6], b[1], b[7], b[5]}
}

// transpose8 transposes an 8x8 bit matrix held as 8 bytes (Hacker's Delight, 7-3): bit c of
// byte r moves to bit r of byte c.
func transpose8(x uint64) uint64 {
	t := (x ^ (x >> 7)) & 0x00aa00aa00aa00aa
	x ^= t ^ (t << 7)
	t = (x ^ (x >> 14)) & 0x0000cccc0000cccc
	x ^= t ^ (t << 14)
	t = (x ^ (x >> 28)) & 0x00000000f0f0f0f0
	return x ^ t ^ (t << 28)
}

// toPlanes turns 64 bytes into planes: word j's transpose holds, in its byte c, bit c of its
// 8 bytes, which are bits 8j..8j+7 of plane c (position 8-c).
func toPlanes(src []byte) slicedBlock {
	var planes slicedBlock
	for j := range 8 {
		t := transpose8(binary.LittleEndian.Uint64(src[8*j:]))
		for c := range 8 {
			planes[7-c] |= (t >> (8 * c) & 0xff) << (8 * j)
		}
	}
	return planes
}

// fromPlanes is toPlanes backwards, into dst's 64 bytes.
func fromPlanes(dst []byte, planes *slicedBlock) {
	for j := range 8 {
		var u uint64
		for c := range 8 {
			u |= (planes[7-c] >> (8 * j) & 0xff) << (8 * c)
		}
		binary.LittleEndian.PutUint64(dst[8*j:], transpose8(u))
	}
}

// slicedCipher is the tuned bitwise kernel; a tail shorter than 64 bytes goes through a
// zero-padded block.
func slicedCipher(key uint) encryptRange {
	k1, k2 := sdesSubkeys(key)
	sk1, sk2 := sliceSubkey(k1), sliceSubkey(k2)
	return func(dst, src []byte) {
		dst = dst[:len(src)]
		for len(src) >= 64 {
			planes := toPlanes(src)
			out := encryptSliced(&planes, &sk1, &sk2)
			fromPlanes(dst, &out)
			src, dst = src[64:], dst[64:]
		}
		if len(src) > 0 {
			var in, out [64]byte
			copy(in[:], src)
			planes := toPlanes(in[:])
			enc := encryptSliced(&planes, &sk1, &sk2)
			fromPlanes(out[:], &enc)
			copy(dst, out[:len(src)])
		}
	}
}
