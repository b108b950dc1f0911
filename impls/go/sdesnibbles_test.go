package main

import (
	"slices"
	"testing"
	"unsafe"
)

// nibbleLookup is what VPSHUFB computes for one byte and a table pair: each nibble's entry, OR'd.
func nibbleLookup(low, high *[32]byte, b uint) uint { return uint(low[b&0xf] | high[b>>4]) }

func TestTheNibbleTablesMoveBitsAsThePermutationsDo(t *testing.T) {
	tables := &sdesNibbleSteps
	swap := func(b uint) uint { return (b&0xf)<<4 | b>>4 }
	for b := range uint(256) {
		if got, want := nibbleLookup(&tables.ipLow, &tables.ipHigh, b), permute(b, 8, sdesIP); got != want {
			t.Fatalf("IP of %08b: %08b, want %08b", b, got, want)
		}
		if got, want := nibbleLookup(&tables.ipInvLow, &tables.ipInvHigh, b), permute(swap(b), 8, sdesIPInv); got != want {
			t.Fatalf("IP⁻¹ after SW of %08b: %08b, want %08b", b, got, want)
		}
	}
}

// The four tables of a round give f_K's P4(S0 ‖ S1) from the half it reads, for every subkey
// (round 2's through IP⁻¹ after SW, as the last step XORs it in).
func TestTheNibbleRoundTablesAreEPSboxesAndP4ForEveryKey(t *testing.T) {
	for key := range uint(1024) {
		k1, k2 := sdesSubkeys(key)
		tables := nibbleTablesOf(k1, k2)
		for half := range uint(16) {
			for _, round := range []struct {
				name                string
				subkey              uint
				left, right, s0, s1 *[32]byte
				placed              func(p4 uint) uint
			}{
				{"f_K1", k1, &tables.ep1Left, &tables.ep1Right, &tables.s0ToLeft, &tables.s1ToLeft,
					func(p4 uint) uint { return p4 << 4 }},
				{"f_K2", k2, &tables.ep2Left, &tables.ep2Right, &tables.s0ToOutput, &tables.s1ToOutput,
					func(p4 uint) uint { return permute(p4<<4, 8, sdesIPInv) }},
			} {
				mixed := permute(half, 4, sdesEP) ^ round.subkey
				want := round.placed(permute(sbox(&sdesS0, mixed>>4)<<2|sbox(&sdesS1, mixed&0xf), 4, sdesP4))
				for lane := range uint(2) {
					got := uint(round.s0[16*lane+uint(round.left[16*lane+half])] ^ round.s1[16*lane+uint(round.right[16*lane+half])])
					if got != want {
						t.Fatalf("key %d, %s of %04b in lane %d: %08b, want %08b", key, round.name, half, lane, got, want)
					}
				}
			}
		}
	}
}

func TestTheNibbleTablesLieWhereTheAssemblyReadsThem(t *testing.T) {
	tables := &sdesNibbleSteps
	offsets := []uintptr{unsafe.Offsetof(tables.ipLow), unsafe.Offsetof(tables.ipHigh), unsafe.Offsetof(tables.ep1Left),
		unsafe.Offsetof(tables.ep1Right), unsafe.Offsetof(tables.s0ToLeft), unsafe.Offsetof(tables.s1ToLeft),
		unsafe.Offsetof(tables.ep2Left), unsafe.Offsetof(tables.ep2Right), unsafe.Offsetof(tables.s0ToOutput),
		unsafe.Offsetof(tables.s1ToOutput), unsafe.Offsetof(tables.ipInvLow), unsafe.Offsetof(tables.ipInvHigh)}
	want := []uintptr{0, 32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352}
	if !slices.Equal(offsets, want) {
		t.Fatalf("offsets %v, the assembly reads %v", offsets, want)
	}
}

// Both lanes of every table hold the same 16 entries (VPSHUFB looks up within each lane).
func TestEveryNibbleTableIsTheSameInBothLanes(t *testing.T) {
	tables := nibbleTablesOf(sdesSubkeys(642))
	raw := unsafe.Slice((*[32]byte)(unsafe.Pointer(tables)), unsafe.Sizeof(*tables)/32)
	for i, table := range raw {
		if [16]byte(table[:16]) != [16]byte(table[16:]) {
			t.Fatalf("table %d: lanes %x and %x", i, table[:16], table[16:])
		}
	}
}
