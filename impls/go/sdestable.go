// The tuned table form on every architecture: the key's table, then a lookup kernel of sdestable_<arch>.go.
package main

import "encoding/binary"

// streamFrom is where Go's own memmove switches to non-temporal stores: an output this large
// would only evict the input from the cache on its way to memory.
const streamFrom = 1 << 20

// tableCipher is the tuned table form: the key's table (derived by the mask-and-shift kernel),
// then `lookup`, a technique of sdesTableTechniques, over it.
func tableCipher(lookup func(table *[256]byte) encryptRange) func(key uint) encryptRange {
	return func(key uint) encryptRange { return lookup(maskedTable(key)) }
}

// lookupWordsOver is the technique "go": lookupWords over the key's table.
func lookupWordsOver(table *[256]byte) encryptRange {
	return func(dst, src []byte) { lookupWords(dst, src, table) }
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
