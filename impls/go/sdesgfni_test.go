package main

import (
	"bytes"
	"math/bits"
	"math/rand/v2"
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

// Every tuned bitwise kernel this CPU runs (the fallbacks sliced and masks on every CPU) equals
// the portable one on random keys, lengths and dst offsets, with and without streaming stores.
func TestEveryBitwiseKernelMatchesThePortableOnRandomInputsAndKeys(t *testing.T) {
	random := rand.New(rand.NewPCG(47, 47))
	src := splitmix64Bytes(nil, 47, 0, streamFrom+300)
	ciphers := map[string]func(uint) encryptRange{"gfni-avx512": gfniCipher, "sliced": slicedCipher, "masks": maskedCipher}
	for _, kernel := range bitwiseKernels() {
		for trial := range 40 {
			key, offset := uint(random.IntN(1024)), random.IntN(64)
			n := random.IntN(300)
			if trial < 3 {
				n = streamFrom + random.IntN(200)
			}
			want, got := make([]byte, n), make([]byte, n+offset+1)
			got[offset+n] = 0xa5
			bitwiseCipher(key)(want, src[:n])
			ciphers[kernel](key)(got[offset:offset+n], src[:n])
			if !bytes.Equal(got[offset:offset+n], want) || got[offset+n] != 0xa5 {
				t.Fatalf("%s: key %d, %d bytes at offset %d differ from the portable kernel", kernel, key, n, offset)
			}
		}
	}
}

func TestEveryBitwiseKernelEncryptsTheFoxAndIsRecorded(t *testing.T) {
	input := sdesFile(t, []byte("The quick brown fox jumps over the lazy dog\n"))
	for _, kernel := range bitwiseKernels() {
		args := testArgs(t, "sdes-ecb", "seq", 0, "--input", input, "--cipher", "bitwise", "--kernel", "tuned",
			"--bitwise-kernel", kernel)
		result := runOnce(t, args)
		if result.Checksum != "914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf" ||
			args.Extra["bitwise_kernel"] != kernel || args.Extra["kernel_detail"] != sdesTunedBitwise[kernel] {
			t.Errorf("%s: %s, extra %v", kernel, result.Checksum, args.Extra)
		}
	}
}

func TestTheDefaultBitwiseKernelIsTheBestThisCPURuns(t *testing.T) {
	input := sdesFile(t, []byte("fox"))
	args := testArgs(t, "sdes-ecb", "seq", 0, "--input", input, "--cipher", "bitwise", "--kernel", "tuned")
	runOnce(t, args)
	want := map[bool]string{true: "gfni-avx512", false: "sliced"}[hasGFNIAVX512()]
	if args.Extra["bitwise_kernel"] != want {
		t.Fatalf("ran %v, want %s", args.Extra["bitwise_kernel"], want)
	}
}

func TestABitwiseKernelTheCPULacksIsABadArgument(t *testing.T) {
	lacking := []string{"sse9"}
	if !hasGFNIAVX512() {
		lacking = append(lacking, "gfni-avx512")
	}
	for _, kernel := range lacking {
		args := testArgs(t, "sdes-ecb", "seq", 0, "--input", "x", "--cipher", "bitwise", "--kernel", "tuned",
			"--bitwise-kernel", kernel)
		if _, err := sdesWorkload.Prepare(args); exitFor(err) != 2 {
			t.Fatalf("%s: got %v", kernel, err)
		}
	}
}
