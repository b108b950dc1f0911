package main

import (
	"math/bits"
	"slices"
	"testing"
	"unsafe"
)

// affine is what VGF2P8AFFINEQB computes for one byte (sdesgfni.go), to hold each matrix to the
// spec's table for every byte.
func affine(matrix uint64, b byte) byte {
	var out byte
	for bit := range 8 {
		row := byte(matrix >> (8 * (7 - bit)))
		out |= byte(bits.OnesCount8(row&b)&1) << bit
	}
	return out
}

func TestTheGFNIMatricesMoveBitsAsThePermutationsDo(t *testing.T) {
	for v := range 256 {
		b := byte(v)
		checks := []struct {
			name      string
			got, want uint
		}{
			{"IP", uint(affine(sdesGFNI.ip, b)), permute(uint(b), 8, sdesIP)},
			{"IP⁻¹", uint(affine(sdesGFNI.ipInv, b)), permute(uint(b), 8, sdesIPInv)},
			{"E/P", uint(affine(sdesGFNI.ep, b)), permute(uint(b)&0xf, 4, sdesEP)},
			{"P4", uint(affine(sdesGFNI.p4ToLeft, b)), permute(uint(b)&0xf, 4, sdesP4) << 4},
			{"SW", uint(affine(sdesGFNI.swap, b)), uint(b&0xf)<<4 | uint(b>>4)},
		}
		for _, c := range checks {
			if c.got != c.want {
				t.Fatalf("%s of %08b: %08b, want %08b", c.name, b, c.got, c.want)
			}
		}
	}
}

func TestTheGFNITablesLieWhereTheAssemblyReadsThem(t *testing.T) {
	tables := &sdesGFNI
	offsets := []uintptr{unsafe.Offsetof(tables.s0), unsafe.Offsetof(tables.s1), unsafe.Offsetof(tables.ip),
		unsafe.Offsetof(tables.ep), unsafe.Offsetof(tables.p4ToLeft), unsafe.Offsetof(tables.swap), unsafe.Offsetof(tables.ipInv)}
	want := []uintptr{0, 64, 128, 136, 144, 152, 160}
	if !slices.Equal(offsets, want) {
		t.Fatalf("offsets %v, the assembly reads %v", offsets, want)
	}
}

func TestTheGFNISboxesLookUpTheSpecEntriesInEveryLane(t *testing.T) {
	for at := range 64 {
		if uint(sdesGFNI.s0[at]) != sbox(&sdesS0, uint(at%16))<<2 || uint(sdesGFNI.s1[at]) != sbox(&sdesS1, uint(at%16)) {
			t.Fatalf("entry %d: s0 %x s1 %x", at, sdesGFNI.s0[at], sdesGFNI.s1[at])
		}
	}
}
