package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const table642 = "ce81add08bc4ec95747b43b631dec213f7104b9b52550e3eae9e20f5eb3b65b062290578e368401ddc932b5eb9366efb1fb82373badda2d602768c7d83d3cd18fa1519445f507c01e0af17c6a5eab247a3849f4f22c13a0a9aaab4613feff124129d91e8b7f8d4a94cc7ff6a0d465a2fcb2877278e69d2a672061cc9d78779886ce70b962d664e3332bd25f097d860b55156ed5d14f3ac380c9882534dfd03f6c08f637e85cae2dbda358d587f70cc3dd9be45d5bc1b0090a0302ebbe5756b1efcb3dfe699167a674209b164c348f421c52659e980a73ca89c08f207f9495786545b374a11fe920feea139c8abe45c896d8ad1412ccf940434a41a6f71e1bf2a"

func TestKey1010000010GivesK1AndK2(t *testing.T) {
	k1, k2 := sdesSubkeys(0b1010000010)
	if k1 != 0b10100100 || k2 != 0b01000011 {
		t.Fatalf("K1 %08b K2 %08b", k1, k2)
	}
}

func TestEncryptionVectors(t *testing.T) {
	for _, v := range []struct {
		key           uint
		plain, cipher byte
	}{
		{0b0000000000, 0b10101010, 0b00010001}, {0b1110001110, 0b10101010, 0b11001010},
		{0b1110001110, 0b01010101, 0b01110000}, {0b1111111111, 0b10101010, 0b00000100},
		{0b1010000010, 0b10010111, 0b00111000}, {0b1010000010, 0b00000011, 0b11010000},
	} {
		k1, k2 := sdesSubkeys(v.key)
		if got := encryptByte(k1, k2, uint(v.plain)); got != uint(v.cipher) {
			t.Errorf("key %010b plain %08b: got %08b, want %08b", v.key, v.plain, got, v.cipher)
		}
	}
}

func TestTableOfKey642(t *testing.T) {
	if got := hex.EncodeToString(sdesTable(642)[:]); got != table642 {
		t.Fatalf("table of 642 = %s", got)
	}
}

func TestDecryptionSwapsK1AndK2(t *testing.T) {
	for key := uint(0); key < 1024; key += 37 {
		k1, k2 := sdesSubkeys(key)
		for b := range 256 {
			if encryptByte(k2, k1, encryptByte(k1, k2, uint(b))) != uint(b) {
				t.Fatalf("key %d byte %d does not round-trip", key, b)
			}
		}
	}
}

func TestBitwiseAndTableAgreeForEveryKey(t *testing.T) {
	plain := make([]byte, 256)
	for b := range plain {
		plain[b] = byte(b)
	}
	for key := uint(0); key < 1024; key++ {
		bitwise, table := make([]byte, 256), make([]byte, 256)
		bitwiseCipher(key)(bitwise, plain)
		portableTableCipher(key)(table, plain)
		if string(bitwise) != string(table) {
			t.Fatalf("key %d: bitwise and table differ", key)
		}
	}
}

func sdesFile(t *testing.T, content []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "input")
	if err := os.WriteFile(path, content, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestQuickBrownFoxUnderKey642(t *testing.T) {
	input := sdesFile(t, []byte("The quick brown fox jumps over the lazy dog\n"))
	want := "914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf"
	for _, model := range sdesWorkload.Models {
		for _, cipher := range []string{"bitwise", "table"} {
			args := testArgs(t, "sdes-ecb", model, 2, "--input", input, "--key", "642", "--cipher", cipher, "--chunk", "5")
			if got := runOnce(t, args).Checksum; got != want {
				t.Errorf("%s/%s: %s", model, cipher, got)
			}
		}
	}
}

// Every tuned technique of both ciphers, forced by PARBENCH_SDES_TECHNIQUE, encrypts the fox
// to the spec's SHA-256 through the whole program and says so, its label first.
func TestEveryTechniqueForcedEncryptsTheFoxAndIsRecorded(t *testing.T) {
	input := sdesFile(t, []byte("The quick brown fox jumps over the lazy dog\n"))
	check := func(t *testing.T, cipher, label string) {
		t.Setenv(sdesTechniqueVariable, label)
		args := testArgs(t, "sdes-ecb", "seq", 0, "--input", input, "--cipher", cipher, "--kernel", "tuned")
		result := runOnce(t, args)
		if result.Checksum != "914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf" ||
			args.Extra[cipher+"_kernel"] != label || !strings.HasPrefix(args.Extra["kernel_detail"].(string), label+": ") {
			t.Errorf("%s: %s, extra %v", label, result.Checksum, args.Extra)
		}
	}
	for _, technique := range sdesBitwiseTechniques {
		t.Run("bitwise/"+technique.label, func(t *testing.T) { skipUnlessRuns(t, technique); check(t, "bitwise", technique.label) })
	}
	for _, technique := range sdesTableTechniques {
		t.Run("table/"+technique.label, func(t *testing.T) { skipUnlessRuns(t, technique); check(t, "table", technique.label) })
	}
}

// Unforced, the tuned kernel is the first technique this CPU runs.
func TestTheDefaultTechniqueIsTheBestThisCPURuns(t *testing.T) {
	t.Setenv(sdesTechniqueVariable, "")
	input := sdesFile(t, []byte("fox"))
	for cipher, best := range map[string]string{"bitwise": firstThatRuns(sdesBitwiseTechniques).label,
		"table": firstThatRuns(sdesTableTechniques).label} {
		args := testArgs(t, "sdes-ecb", "seq", 0, "--input", input, "--cipher", cipher, "--kernel", "tuned")
		runOnce(t, args)
		if args.Extra[cipher+"_kernel"] != best {
			t.Errorf("%s: ran %v, want %s", cipher, args.Extra[cipher+"_kernel"], best)
		}
	}
}

func TestATechniqueTheCPULacksIsABadArgument(t *testing.T) {
	for _, flags := range [][]string{{"--cipher", "table", "--table-kernel", "sse9"}, {"--cipher", "bitwise", "--bitwise-kernel", "sse9"}} {
		args := testArgs(t, "sdes-ecb", "seq", 0, append([]string{"--input", "x", "--kernel", "tuned"}, flags...)...)
		if _, err := sdesWorkload.Prepare(args); exitFor(err) != 2 {
			t.Fatalf("%v: got %v", flags, err)
		}
	}
}

// Every tuned bitwise technique equals the portable kernel for all 1,024 keys, on random input
// at random lengths around its block and random dst offsets, and on a few inputs past the
// streaming threshold; it writes nothing past the range.
func TestEveryBitwiseTechniqueMatchesThePortableForEveryKey(t *testing.T) {
	src := splitmix64Bytes(nil, 47, 0, streamFrom+300)
	for _, technique := range sdesBitwiseTechniques {
		t.Run(technique.label, func(t *testing.T) {
			skipUnlessRuns(t, technique)
			random := rand.New(rand.NewPCG(47, 61))
			for key := range uint(1024) {
				n := random.IntN(300)
				if key%400 == 7 {
					n = streamFrom + random.IntN(200)
				}
				checkAgainstPortable(t, technique.label, key, bitwiseCipher(key), technique.kernel(key), src[:n], random.IntN(64))
			}
		})
	}
}

// Every tuned table technique equals the portable lookup for all 1,024 keys in the same way.
func TestEveryTableTechniqueMatchesThePortableForEveryKey(t *testing.T) {
	src := splitmix64Bytes(nil, 11, 0, streamFrom+300)
	for _, technique := range sdesTableTechniques {
		t.Run(technique.label, func(t *testing.T) {
			skipUnlessRuns(t, technique)
			random := rand.New(rand.NewPCG(11, 61))
			for key := range uint(1024) {
				n := random.IntN(1000)
				if key%400 == 7 {
					n = streamFrom + random.IntN(200)
				}
				checkAgainstPortable(t, technique.label, key, portableTableCipher(key), tableCipher(technique.kernel)(key), src[:n], random.IntN(64))
			}
		})
	}
}

// checkAgainstPortable runs both ciphers over src, the tuned one into dst at `offset`, with a
// guard byte after it.
func checkAgainstPortable(t *testing.T, label string, key uint, portable, tuned encryptRange, src []byte, offset int) {
	t.Helper()
	want, got := make([]byte, len(src)), make([]byte, len(src)+offset+1)
	got[offset+len(src)] = 0xa5
	portable(want, src)
	tuned(got[offset:offset+len(src)], src)
	if !bytes.Equal(got[offset:offset+len(src)], want) || got[offset+len(src)] != 0xa5 {
		t.Fatalf("%s: key %d, %d bytes at offset %d differ from the portable kernel", label, key, len(src), offset)
	}
}

func TestEverySdesModelAgreesForArbitraryParams(t *testing.T) {
	text := splitmix64Bytes(nil, 3, 0, 100_003)
	for _, c := range []struct{ key, chunk, workers int }{{0, 1, 3}, {642, 4096, 2}, {1023, 99_999, 4}, {311, 7777, 1}} {
		input := sdesFile(t, text)
		table := sdesTable(uint(c.key))
		expected := make([]byte, len(text))
		for i, b := range text {
			expected[i] = table[b]
		}
		sum := sha256.Sum256(expected)
		want := hex.EncodeToString(sum[:])
		for _, model := range sdesWorkload.Models {
			for _, cipher := range []string{"bitwise", "table"} {
				for _, kernel := range []string{"portable", "tuned"} {
					args := testArgs(t, "sdes-ecb", model, c.workers, "--input", input, "--key", itoa(c.key),
						"--cipher", cipher, "--chunk", itoa(c.chunk), "--kernel", kernel)
					if got := runOnce(t, args).Checksum; got != want {
						t.Errorf("%+v %s/%s/%s: %s, want %s", c, model, cipher, kernel, got, want)
					}
				}
			}
		}
	}
}

func TestSpelledOutPermutationsMatchTheSpecTables(t *testing.T) {
	for b := uint(0); b < 256; b++ {
		if initialPermute(b) != permute(b, 8, sdesIP) || inversePermute(b) != permute(b, 8, sdesIPInv) {
			t.Fatalf("IP or IP⁻¹ of %08b", b)
		}
	}
	for r := uint(0); r < 16; r++ {
		if expandPermute(r) != permute(r, 4, sdesEP) || permute4(r) != permute(r, 4, sdesP4) {
			t.Fatalf("E/P or P4 of %04b", r)
		}
	}
}

func TestSmokeSizeUsesBothWorkersAndReportsItsChunks(t *testing.T) {
	input := sdesFile(t, make([]byte, 1<<20))
	args := testArgs(t, "sdes-ecb", "goroutines", 2, "--input", input, "--key", "642", "--cipher", "table")
	extra := runOnce(t, args).Extra
	if extra["workers"] != 2 || extra["chunk"] != 1<<19 || extra["chunks"] != 2 || extra["workers_used"] != 2 {
		t.Fatalf("extra %v; want 2 workers, chunk 512 KiB, 2 chunks, 2 used", extra)
	}
}

func TestEverySdesModelReportsTheCopyCeiling(t *testing.T) {
	input := sdesFile(t, make([]byte, 100_000))
	for _, model := range sdesWorkload.Models {
		args := testArgs(t, "sdes-ecb", model, 2, "--input", input, "--key", "642", "--cipher", "bitwise")
		extra := runOnce(t, args).Extra
		if ns, _ := extra["ceiling_ns"].(int64); extra["ceiling"] != "copy" || ns <= 0 {
			t.Errorf("%s: extra %v", model, extra)
		}
	}
}

// The tuned kernels derive the key's table with the masked kernel: the spec's table all the same.
func TestTheMaskedTableIsTheSpecTable(t *testing.T) {
	if got := hex.EncodeToString(maskedTable(642)[:]); got != table642 {
		t.Fatalf("masked table of 642 = %s", got)
	}
	for key := range uint(1024) {
		if *maskedTable(key) != *sdesTable(key) {
			t.Fatalf("key %d: the masked table differs from the reference", key)
		}
	}
}

// BenchmarkTableKernels compares each table kernel with Go's copy over the same 64 MiB.
func BenchmarkTableKernels(b *testing.B) {
	src := splitmix64Bytes(nil, 5, 0, 64<<20)
	dst := make([]byte, len(src))
	copy(dst, src)
	b.Run("copy", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		for b.Loop() {
			copy(dst, src)
		}
	})
	for _, technique := range sdesTableTechniques {
		if !technique.runs() {
			continue
		}
		lookup := technique.kernel(sdesTable(642))
		b.Run(technique.label, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				lookup(dst, src)
			}
		})
	}
}

// BenchmarkBitwiseTechniques runs each bitwise technique this CPU has over 16 MiB (the figures'
// size) and over 64 KiB (in cache: what the instructions cost without the memory).
func BenchmarkBitwiseTechniques(b *testing.B) {
	src := splitmix64Bytes(nil, 5, 0, 16<<20)
	dst := make([]byte, len(src))
	copy(dst, src)
	for _, size := range []int{64 << 10, len(src)} {
		for _, technique := range sdesBitwiseTechniques[:2] {
			if !technique.runs() {
				continue
			}
			b.Run(fmt.Sprintf("%s/%d", technique.label, size), func(b *testing.B) {
				b.SetBytes(int64(size))
				for b.Loop() {
					technique.kernel(642)(dst[:size], src[:size])
				}
			})
		}
	}
}

// The tuned (bit-sliced) bitwise kernel equals the portable one for every key, at lengths
// around its 64-byte block, and the key comes from the repetition's variant.
func TestSlicedBitwiseMatchesThePortableForEveryKey(t *testing.T) {
	src := splitmix64Bytes(nil, 9, 0, 64*5+37)
	for key := range uint(1024) {
		portable, sliced := bitwiseCipher(key), slicedCipher(key)
		for _, n := range []int{0, 1, 63, 64, 65, 128, len(src)} {
			want, got := make([]byte, n), make([]byte, n)
			portable(want, src[:n])
			sliced(got, src[:n])
			if !bytes.Equal(want, got) {
				t.Fatalf("key %d, %d bytes: sliced %x, portable %x", key, n, got, want)
			}
		}
	}
}

// The tuned mask-and-shift kernel equals the portable one for every key and every byte.
func TestMaskedBitwiseMatchesThePortableForEveryKeyAndByte(t *testing.T) {
	every := make([]byte, 256)
	for b := range every {
		every[b] = byte(b)
	}
	for key := range uint(1024) {
		want, got := make([]byte, 256), make([]byte, 256)
		bitwiseCipher(key)(want, every)
		maskedCipher(key)(got, every)
		if !bytes.Equal(want, got) {
			t.Fatalf("key %d: masks %x, portable %x", key, got, want)
		}
	}
}

func TestPortableAndTunedTableKernelsAgree(t *testing.T) {
	src := splitmix64Bytes(nil, 11, 0, 100_003)
	for _, key := range []uint{0, 642, 1023} {
		want, got := make([]byte, len(src)), make([]byte, len(src))
		portableTableCipher(key)(want, src)
		tableCipher(firstThatRuns(sdesTableTechniques).kernel)(key)(got, src)
		if !bytes.Equal(want, got) {
			t.Fatalf("key %d: tuned table differs from portable", key)
		}
	}
}

// Each repetition encrypts under its own variant key: the fox under 642 as a variant (base key
// 5) gives the spec's SHA-256, for every model, cipher and kernel, and a different key differs.
func TestVariantKeysPerRepetition(t *testing.T) {
	input := sdesFile(t, []byte("The quick brown fox jumps over the lazy dog\n"))
	for _, model := range sdesWorkload.Models {
		for _, cipher := range []string{"bitwise", "table"} {
			for _, kernel := range []string{"portable", "tuned"} {
				args := testArgs(t, "sdes-ecb", model, 2, "--input", input, "--key", "5", "--cipher", cipher,
					"--kernel", kernel)
				results := runVariants(t, args, 642, 5)
				if results[0].Checksum != "914675d0c7b2f71113578ca02139eb35d6432c8e7d5da3684487415877b391cf" ||
					results[1].Checksum == results[0].Checksum || args.Extra["kernel_detail"] == nil {
					t.Errorf("%s/%s/%s: %s then %s", model, cipher, kernel, results[0].Checksum, results[1].Checksum)
				}
			}
		}
	}
}

// BenchmarkBitwise is each bitwise kernel over 1 MiB on one goroutine: the portable reference
// and the tuned mask-and-shift and bit-sliced forms.
func BenchmarkBitwise(b *testing.B) {
	src := splitmix64Bytes(nil, 5, 0, 1<<20)
	dst := make([]byte, len(src))
	for _, kernel := range []struct {
		name   string
		cipher func(uint) encryptRange
	}{{"portable", bitwiseCipher}, {"masks", maskedCipher}, {"sliced", slicedCipher}} {
		cipher := kernel.cipher(642)
		b.Run(kernel.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				cipher(dst, src)
			}
		})
	}
}

// Each packed S-box gives the spec's entry for every 4-bit input: row from bits 1 and 4, column
// from bits 2 and 3, worked out here apart from sbox.
func TestPackedSboxesLookUpTheSpecEntries(t *testing.T) {
	for in := uint(0); in < 16; in++ {
		row, column := (in>>3)<<1|in&1, (in>>2&1)<<1|in>>1&1
		if sboxLookup(sdesS0Packed, in) != sdesS0[row][column] || sboxLookup(sdesS1Packed, in) != sdesS1[row][column] {
			t.Fatalf("input %04b: S0 %d S1 %d, want %d %d", in, sboxLookup(sdesS0Packed, in),
				sboxLookup(sdesS1Packed, in), sdesS0[row][column], sdesS1[row][column])
		}
	}
}

// The S-box's row is bits 1 and 4 of its input, its column bits 2 and 3 (1011 is row 3,
// column 1), for every entry of both boxes as the spec prints them.
func TestSBoxRowIsBits1And4AndColumnBits2And3(t *testing.T) {
	for row := range uint(4) {
		for column := range uint(4) {
			in := (row>>1)<<3 | column<<1 | row&1
			if sbox(&sdesS0, in) != sdesS0[row][column] || sbox(&sdesS1, in) != sdesS1[row][column] {
				t.Fatalf("input %04b: S0 %d S1 %d, want row %d column %d", in, sbox(&sdesS0, in), sbox(&sdesS1, in), row, column)
			}
		}
	}
	if sbox(&sdesS0, 0b1011) != 1 || sbox(&sdesS1, 0b0110) != 3 {
		t.Fatalf("S0(1011) = %d, S1(0110) = %d; want row 3 column 1 = 1 and row 0 column 3 = 3",
			sbox(&sdesS0, 0b1011), sbox(&sdesS1, 0b0110))
	}
}
