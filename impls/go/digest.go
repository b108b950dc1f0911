// Shared checksum helpers from the workload specs: FNV-1a 64, the order-free digest, SplitMix64 bytes.
package main

import (
	"encoding/binary"
	"fmt"
)

const (
	fnvOffset   uint64 = 0xcbf29ce484222325
	fnvPrime    uint64 = 0x100000001b3
	goldenGamma uint64 = 0x9e3779b97f4a7c15
)

func fnv1a64(data []byte) uint64 {
	h := fnvOffset
	for _, b := range data {
		h ^= uint64(b)
		h *= fnvPrime
	}
	return h
}

// digestHex prints an order-free digest (a wrapping sum of fnv1a64 values) as 16 hex digits.
func digestHex(sum uint64) string { return fmt.Sprintf("%016x", sum) }

// splitmix64Bytes is SplitMix64 bytes(seed, index, n), appended to dst.
func splitmix64Bytes(dst []byte, seed, index uint64, n int) []byte {
	state := seed + index*goldenGamma
	var word [8]byte
	for len(dst) < n {
		state += goldenGamma
		z := state
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		binary.LittleEndian.PutUint64(word[:], z)
		dst = append(dst, word[:min(8, n-len(dst))]...)
	}
	return dst
}
