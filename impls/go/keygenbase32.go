// keygen's tuned Base32: AVX-512 VBMI or AVX2 in Go assembly where the CPU has it, else encoding/base32.
package main

// base32VBMITables is what base32VBMI loads once per call, at the offsets its assembly reads:
// spread puts each 5-byte group, reversed, in the low bytes of its own 64-bit lane (so the lane
// holds the group as a 40-bit integer); shifts are VPMULTISHIFTQB's bit offsets of the eight
// 5-bit fields of a lane (35, 30, …, 0); letters is the alphabet twice, so the three high bits
// VPMULTISHIFTQB leaves in each field byte do not matter to VPERMB.
type base32VBMITables struct {
	spread, shifts, letters [64]byte
}

var keygenBase32VBMI = func() base32VBMITables {
	var t base32VBMITables
	for lane := range 8 {
		for k := range 8 {
			if k < 5 {
				t.spread[8*lane+k] = byte(5*lane + 4 - k)
			}
			t.shifts[8*lane+k] = byte(35 - 5*k)
		}
	}
	const alphabet = "abcdefghijklmnopqrstuvwxyz234567"
	for i := range 64 {
		t.letters[i] = alphabet[i%32]
	}
	return t
}()

// base32AVX2Tables is what base32AVX2 loads once per call, at the offsets its assembly reads
// (32 bytes apart). A YMM holds four 5-byte groups, two per 128-bit lane: spread (one for each
// YMM of a 40-byte block, whose lanes load at different offsets) puts each group, reversed, in
// the low bytes of its own 64-bit lane, as a 40-bit integer. Three steps of shift, blend and
// mask then halve the fields' width (two 20-bit fields in their own 32 bits, four 10-bit ones in
// 16, eight 5-bit ones in bytes: masks20, masks10, low5 and high5), which leaves the eight
// 5-bit values of a group from the last to the first, so reverse puts them in the text's order.
// A letter is then value + 'a', less 'a' - ('2' - 26) where the value is above 25 (26 is '2').
type base32AVX2Tables struct {
	spreadFirst, spreadSecond, masks20, masks10, low5, high5, reverse, above25, digitGap, letterA [32]byte
}

var keygenBase32AVX2 = func() base32AVX2Tables {
	var t base32AVX2Tables
	// Where each lane's two groups start in the 16 bytes it loads: the first YMM's lanes load at
	// 0 and 10, the second's at 20 and 24, so that the last load ends with the block.
	spreadGroups := func(spread *[32]byte, firstGroupAt [2]int) {
		for lane := range 2 {
			for group := range 2 {
				for k := range 8 {
					at := 16*lane + 8*group + k
					spread[at] = 0x80 // VPSHUFB writes 0
					if k < 5 {
						spread[at] = byte(firstGroupAt[lane] + 5*group + 4 - k)
					}
				}
			}
		}
	}
	spreadGroups(&t.spreadFirst, [2]int{0, 0})
	spreadGroups(&t.spreadSecond, [2]int{0, 6})
	for at := range 32 {
		t.masks20[at] = [4]byte{0xff, 0xff, 0x0f, 0}[at%4]
		t.masks10[at] = [2]byte{0xff, 0x03}[at%2]
		t.low5[at] = [2]byte{0x1f, 0}[at%2]
		t.high5[at] = [2]byte{0, 0x1f}[at%2]
		t.reverse[at] = byte(at%16/8*8 + 7 - at%8)
		t.above25[at], t.digitGap[at], t.letterA[at] = 25, 'a'-('2'-26), 'a'
	}
	return t
}()

// The tuned Base32 techniques, fastest first (--base32-kernel or PARBENCH_KEYGEN_TECHNIQUE names one).
var keygenBase32Techniques = []technique[func(dst, src []byte)]{
	{label: "avx512vbmi", needs: "AVX-512 F, AVX-512 BW and AVX-512 VBMI", cpuFlags: []string{"avx512f", "avx512bw", "avx512vbmi"},
		runs: hasAVX512VBMI, kernel: encodeBase32VBMI,
		detail: "Go asm AVX-512 VBMI Base32 (VPERMB + VPMULTISHIFTQB + VPERMB, 40 bytes -> 64 letters) in place into the key's string (unsafe.String)"},
	{label: "avx2", needs: "AVX2", cpuFlags: []string{"avx2"}, runs: hasAVX2, kernel: encodeBase32AVX2,
		detail: "Go asm AVX2 Base32 (VPSHUFB spreads 5-byte groups into 64-bit lanes, shifts and blends cut 5-bit fields, compare-and-add letters; 40 bytes -> 64 letters) in place into the key's string (unsafe.String)"},
	{label: "go", needs: "nothing", runs: everywhere, kernel: base32Lower.Encode,
		detail: "encoding/base32 Encode in place into the key's string (unsafe.String)"},
}

// encodeBase32Blocks encodes src into dst (base32Lower.EncodedLen(len(src)) bytes): 40-byte
// blocks by `blocksOf`, which writes 64 letters a block, the rest (a whole number of 5-byte
// groups before it, so the groups line up) and its padding by encoding/base32.
func encodeBase32Blocks(dst, src []byte, blocksOf func(dst, src *byte, blocks int)) {
	blocks := len(src) / 40
	if blocks > 0 {
		_ = dst[64*blocks-1]
		blocksOf(&dst[0], &src[0], blocks)
	}
	base32Lower.Encode(dst[64*blocks:], src[40*blocks:])
}
