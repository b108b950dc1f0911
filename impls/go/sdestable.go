// The tuned table form on every architecture: the key's table, then a lookup kernel of sdestable_<arch>.go.
package main

import "encoding/binary"

// tableCipher is the tuned table form: the key's table (derived by the mask-and-shift kernel),
// then a kernel of sdestable_amd64.go: by default the fastest the CPU offers, `--table-kernel`
// names another.
func tableCipher(kernel string) func(key uint) encryptRange {
	return func(key uint) encryptRange { return tableLookupWith(kernel, maskedTable(key)) }
}

// lookupWords is the tuned kernels' plain-Go loop: eight lookups per 64-bit load and store, about 1.4x
// the byte-at-a-time loop, since Go does not vectorise the byte loop itself. Re-slicing both
// sides each step (rather than indexing with i) leaves the loop without bounds checks.
func lookupWords(dst, src []byte, table *[256]byte) {
	dst = dst[:len(src)]
	for len(src) >= 8 && len(dst) >= 8 {
		word := binary.LittleEndian.Uint64(src)
		binary.LittleEndian.PutUint64(dst, uint64(table[byte(word)])|
			uint64(table[byte(word>>8)])<<8|uint64(table[byte(word>>16)])<<16|
			uint64(table[byte(word>>24)])<<24|uint64(table[byte(word>>32)])<<32|
			uint64(table[byte(word>>40)])<<40|uint64(table[byte(word>>48)])<<48|
			uint64(table[byte(word>>56)])<<56)
		src, dst = src[8:], dst[8:]
	}
	for i, b := range src {
		if i < len(dst) {
			dst[i] = table[b]
		}
	}
}
