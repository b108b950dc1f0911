package main

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"testing"
)

// Every tuned Base32 encoder this CPU runs (encoding/base32 on every CPU) writes what
// encoding/base32 writes, at lengths around the 40-byte block, and nothing past the text.
func TestEveryBase32KernelMatchesEncodingBase32OnRandomLengths(t *testing.T) {
	random := rand.New(rand.NewPCG(47, 32))
	src := splitmix64Bytes(nil, 32, 0, 2000)
	for _, kernel := range base32Kernels() {
		encode := base32EncoderNamed(kernel)
		for trial := range 300 {
			n := trial
			if trial >= 200 {
				n = random.IntN(len(src))
			}
			want := make([]byte, base32Lower.EncodedLen(n))
			base32Lower.Encode(want, src[:n])
			got := make([]byte, len(want)+1)
			got[len(want)] = '!'
			encode(got[:len(want)], src[:n])
			if !bytes.Equal(got[:len(want)], want) || got[len(want)] != '!' {
				t.Fatalf("%s, %d bytes: %q, want %q", kernel, n, got, want)
			}
		}
	}
}

func TestEveryBase32KernelGivesThePortableSeededKeysAndIsRecorded(t *testing.T) {
	portable := testArgs(t, "keygen", "seq", 0, "--count", "50", "--bytes", "1000", "--source", "seeded", "--seed", "7")
	want := runOnce(t, portable).Checksum
	for _, kernel := range base32Kernels() {
		args := testArgs(t, "keygen", "seq", 0, "--count", "50", "--bytes", "1000", "--source", "seeded", "--seed", "7",
			"--kernel", "tuned", "--base32-kernel", kernel)
		if got := runOnce(t, args).Checksum; got != want || args.Extra["base32_kernel"] != kernel {
			t.Errorf("%s: %s, want %s; extra %v", kernel, got, want, args.Extra)
		}
	}
}

func TestTheDefaultBase32KernelIsTheBestThisCPURuns(t *testing.T) {
	args := testArgs(t, "keygen", "seq", 0, "--count", "3", "--kernel", "tuned")
	runOnce(t, args)
	if args.Extra["base32_kernel"] != base32Kernels()[0] || len(base32Kernels()) < 1 || base32Kernels()[len(base32Kernels())-1] != "go" {
		t.Fatalf("ran %v of %v", args.Extra["base32_kernel"], base32Kernels())
	}
}

func TestABase32KernelTheCPULacksIsABadArgument(t *testing.T) {
	lacking := []string{"sse9"}
	if base32Kernels()[0] != "avx512vbmi" {
		lacking = append(lacking, "avx512vbmi")
	}
	for _, kernel := range lacking {
		args := testArgs(t, "keygen", "seq", 0, "--count", "3", "--kernel", "tuned", "--base32-kernel", kernel)
		if _, err := keygenWorkload.Prepare(args); exitFor(err) != 2 {
			t.Fatalf("%s: got %v", kernel, err)
		}
	}
	args := testArgs(t, "keygen", "seq", 0, "--count", "3", "--base32-kernel", "go")
	if _, err := keygenWorkload.Prepare(args); exitFor(err) != 2 {
		t.Fatalf("--base32-kernel with the portable kernel: got %v", err)
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
