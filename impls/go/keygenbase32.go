// keygen's tuned Base32: AVX-512 VBMI in Go assembly where the CPU has it, else encoding/base32.
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

// The tuned Base32 encoders (--base32-kernel; by default the first of base32Kernels()), each
// with its extra.kernel_detail words.
var keygenTunedEncoders = map[string]string{
	"avx512vbmi": "Go asm AVX-512 VBMI Base32 (VPERMB + VPMULTISHIFTQB + VPERMB, 40 bytes -> 64 letters) in place into the key's string (unsafe.String)",
	"go":         "encoding/base32 Encode in place into the key's string (unsafe.String)",
}

// base32EncoderNamed is the named encoder of base32Kernels() as dst, src → Encode.
func base32EncoderNamed(kernel string) func(dst, src []byte) {
	if kernel == "avx512vbmi" {
		return encodeBase32VBMI
	}
	return base32Lower.Encode
}
