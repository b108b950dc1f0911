package main

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// Every tuned Base32 technique writes what encoding/base32 writes, on random bytes at every
// length up to 200 and random ones up to 2,000, and nothing past the text.
func TestEveryBase32TechniqueMatchesEncodingBase32OnRandomLengths(t *testing.T) {
	for _, technique := range keygenBase32Techniques {
		t.Run(technique.label, func(t *testing.T) {
			skipUnlessRuns(t, technique)
			random := rand.New(rand.NewPCG(47, 32))
			for trial := range 400 {
				n := trial
				if trial >= 200 {
					n = random.IntN(2000)
				}
				src := splitmix64Bytes(nil, uint64(trial), 0, n)
				want := make([]byte, base32Lower.EncodedLen(n))
				base32Lower.Encode(want, src)
				got := make([]byte, len(want)+1)
				got[len(want)] = '!'
				technique.kernel(got[:len(want)], src)
				if !bytes.Equal(got[:len(want)], want) || got[len(want)] != '!' {
					t.Fatalf("%d bytes: %q, want %q", n, got, want)
				}
			}
		})
	}
}

// Every technique, forced by PARBENCH_KEYGEN_TECHNIQUE, gives the portable kernel's seeded keys
// and says so, its label first.
func TestEveryBase32TechniqueForcedGivesThePortableSeededKeysAndIsRecorded(t *testing.T) {
	seeded := []string{"--count", "50", "--bytes", "1000", "--source", "seeded", "--seed", "7"}
	want := runOnce(t, testArgs(t, "keygen", "seq", 0, seeded...)).Checksum
	for _, technique := range keygenBase32Techniques {
		t.Run(technique.label, func(t *testing.T) {
			skipUnlessRuns(t, technique)
			t.Setenv(keygenTechniqueVariable, technique.label)
			args := testArgs(t, "keygen", "seq", 0, append(seeded, "--kernel", "tuned")...)
			if got := runOnce(t, args).Checksum; got != want || args.Extra["base32_kernel"] != technique.label ||
				!strings.HasPrefix(args.Extra["kernel_detail"].(string), technique.label+": ") {
				t.Errorf("%s, want %s; extra %v", got, want, args.Extra)
			}
		})
	}
}

func TestTheDefaultBase32TechniqueIsTheBestThisCPURuns(t *testing.T) {
	t.Setenv(keygenTechniqueVariable, "")
	args := testArgs(t, "keygen", "seq", 0, "--count", "3", "--kernel", "tuned")
	runOnce(t, args)
	if best := firstThatRuns(keygenBase32Techniques).label; args.Extra["base32_kernel"] != best {
		t.Fatalf("ran %v, want %s", args.Extra["base32_kernel"], best)
	}
}

func TestABase32TechniqueTheCPULacksIsABadArgument(t *testing.T) {
	t.Setenv(keygenTechniqueVariable, "sse9")
	args := testArgs(t, "keygen", "seq", 0, "--count", "3", "--kernel", "tuned")
	if _, err := keygenWorkload.Prepare(args); exitFor(err) != 2 || !strings.Contains(err.Error(), "avx512vbmi, avx2, go") {
		t.Fatalf("PARBENCH_KEYGEN_TECHNIQUE=sse9: got %v", err)
	}
	t.Setenv(keygenTechniqueVariable, "")
	args = testArgs(t, "keygen", "seq", 0, "--count", "3", "--base32-kernel", "go")
	if _, err := keygenWorkload.Prepare(args); exitFor(err) != 2 {
		t.Fatalf("--base32-kernel with the portable kernel: got %v", err)
	}
}

func TestTheAVX2Base32TablesLieWhereTheAssemblyReadsThem(t *testing.T) {
	tables := &keygenBase32AVX2
	offsets := []uintptr{unsafe.Offsetof(tables.spreadFirst), unsafe.Offsetof(tables.spreadSecond),
		unsafe.Offsetof(tables.masks20), unsafe.Offsetof(tables.masks10), unsafe.Offsetof(tables.low5),
		unsafe.Offsetof(tables.high5), unsafe.Offsetof(tables.reverse), unsafe.Offsetof(tables.above25),
		unsafe.Offsetof(tables.digitGap), unsafe.Offsetof(tables.letterA)}
	want := []uintptr{0, 32, 64, 96, 128, 160, 192, 224, 256, 288}
	if !slices.Equal(offsets, want) {
		t.Fatalf("offsets %v, the assembly reads %v", offsets, want)
	}
}

// NIST SP 800-38A, F.5.1 (CTR-AES128.Encrypt), first block: over zeros the source gives the
// keystream, the ciphertext XOR the plaintext.
func TestTheTunedGeneratorIsTheAES128CTRKeystream(t *testing.T) {
	var seed [32]byte
	hex.Decode(seed[:16], []byte("2b7e151628aed2a6abf7158809cf4f3c"))
	hex.Decode(seed[16:], []byte("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"))
	plain, _ := hex.DecodeString("6bc1bee22e409f96e93d7e117393172a")
	cipherText, _ := hex.DecodeString("874d6191b620e3261bef6864990db6ce")
	random := bytes.Repeat([]byte{0xff}, 16) // the source must not depend on what the buffer held
	aesCTRSource(seed)(random, 0)
	for i := range random {
		if random[i] != plain[i]^cipherText[i] {
			t.Fatalf("keystream %x, want the XOR of %x and %x", random, plain, cipherText)
		}
	}
}
