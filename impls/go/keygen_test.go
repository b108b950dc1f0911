package main

import (
	"crypto/rand"
	mathrand "math/rand/v2"
	"strings"
	"testing"
	"unsafe"
)

func TestBase32LowerWithPadding(t *testing.T) {
	vectors := map[string]string{"": "", "f": "my======", "fo": "mzxq====", "foo": "mzxw6===",
		"foob": "mzxw6yq=", "fooba": "mzxw6ytb", "foobar": "mzxw6ytboi======"}
	for plain, want := range vectors {
		if got := base32Lower.EncodeToString([]byte(plain)); got != want {
			t.Errorf("base32(%q) = %q, want %q", plain, got, want)
		}
	}
}

func TestThousandBytesEncodeToExactly1600Chars(t *testing.T) {
	if got := len(base32Lower.EncodeToString(make([]byte, 1000))); got != 1600 {
		t.Fatalf("1000 bytes encode to %d chars", got)
	}
}

func seededKeygen(t *testing.T, model string, count, keyBytes, workers int, seed string) string {
	t.Helper()
	args := testArgs(t, "keygen", model, workers, "--count", itoa(count), "--bytes", itoa(keyBytes),
		"--source", "seeded", "--seed", seed)
	return runOnce(t, args).Checksum
}

func TestSeededCount3Bytes10Seed1(t *testing.T) {
	for _, model := range keygenWorkload.Models {
		if got := seededKeygen(t, model, 3, 10, 2, "1"); got != "d3605c1b2c10e632" {
			t.Errorf("%s: checksum %s, want d3605c1b2c10e632", model, got)
		}
	}
}

func TestStrongChecksumIsTheOrderFreeDigest(t *testing.T) {
	for _, kernel := range []string{"portable", "tuned"} {
		args := testArgs(t, "keygen", "goroutines", 3, "--count", "1000", "--bytes", "1000", "--source", "strong",
			"--kernel", kernel, "--probes", "0,999")
		result := runOnce(t, args)
		probes := result.Extra["probes"].([]string)
		if len(result.Checksum) != 16 || len(probes) != 2 || len(probes[0]) != 1600 || len(probes[1]) != 1600 {
			t.Fatalf("%s: checksum %s, probes %v", kernel, result.Checksum, probes)
		}
	}
}

func TestStrongKeysDifferForBothKernels(t *testing.T) {
	for _, tuned := range []bool{false, true} {
		c := keygenCase{count: 300, keyBytes: 16, newSource: strongSource(tuned), encode: encodeKeyWith(base32Lower.Encode),
			plan: planChunks(300, 3, keygenChunkCap, 7), pool: testPool(t, 3)}
		keys, _ := c.generate(0, nil)
		seen := map[string]bool{}
		for _, key := range keys {
			if seen[key] {
				t.Fatalf("tuned %v: key %s came twice", tuned, key)
			}
			seen[key] = true
		}
	}
}

// runVariants runs repetitions with --variants the way runCase does, returning each result.
func runVariants(t *testing.T, args *Args, variants ...uint64) []Result {
	t.Helper()
	repetition, err := allWorkloads()[args.Workload].Prepare(args)
	if err != nil {
		t.Fatal(err)
	}
	results := []Result{}
	for _, v := range variants {
		timer := &Timer{variant: v, hasVariant: true}
		result, err := repetition(timer)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, result)
	}
	return results
}

// Protocol 2's vector: seeded, count 3, bytes 10, seed 1 (given as the variant, the base seed
// being another), probes 0, 1, 2, for both models and both kernels.
func TestSeededVariantAndProbes(t *testing.T) {
	want := []string{"yfoafcpmfufjcz7m", "m7wi4znbrxv34xsv", "lzktf67oukj7qc6j"}
	for _, model := range keygenWorkload.Models {
		for _, kernel := range []string{"portable", "tuned"} {
			args := testArgs(t, "keygen", model, 2, "--count", "3", "--bytes", "10", "--source", "seeded",
				"--seed", "99", "--kernel", kernel, "--probes", "0,1,2")
			result := runVariants(t, args, 1)[0]
			probes := result.Extra["probes"].([]string)
			if result.Checksum != "d3605c1b2c10e632" || len(probes) != 3 || probes[0] != want[0] ||
				probes[1] != want[1] || probes[2] != want[2] || args.Extra["kernel"] != kernel {
				t.Errorf("%s/%s: %s, probes %v", model, kernel, result.Checksum, probes)
			}
		}
	}
}

func TestPortableAndTunedKernelsGiveTheSameSeededKeys(t *testing.T) {
	for _, model := range keygenWorkload.Models {
		var got []string
		for _, kernel := range []string{"portable", "tuned"} {
			args := testArgs(t, "keygen", model, 3, "--count", "2500", "--bytes", "37", "--source", "seeded",
				"--seed", "5", "--kernel", kernel, "--probes", "0,1023,1024,2499")
			result := runOnce(t, args)
			got = append(got, result.Checksum+","+strings.Join(result.Extra["probes"].([]string), ","))
		}
		if got[0] != got[1] {
			t.Errorf("%s: portable %s, tuned %s", model, got[0], got[1])
		}
	}
}

func TestProbesOutsideTheCountAreABadArgument(t *testing.T) {
	args := testArgs(t, "keygen", "seq", 0, "--count", "3", "--bytes", "10", "--source", "seeded", "--seed", "1",
		"--probes", "3")
	if _, err := keygenWorkload.Prepare(args); exitFor(err) != 2 {
		t.Fatalf("got %v", err)
	}
}

func TestEveryKeygenModelAgreesForArbitraryParams(t *testing.T) {
	for _, c := range []struct {
		count, keyBytes, workers int
		seed                     string
	}{
		{1, 1, 1, "0"}, {257, 33, 3, "7"}, {1000, 1000, 2, "18446744073709551615"}, {513, 7, 5, "42"},
	} {
		want := seededKeygen(t, "seq", c.count, c.keyBytes, 1, c.seed)
		if got := seededKeygen(t, "goroutines", c.count, c.keyBytes, c.workers, c.seed); got != want {
			t.Errorf("%+v: goroutines %s, seq %s", c, got, want)
		}
	}
}

func TestSmokeCountUsesBothWorkers(t *testing.T) {
	args := testArgs(t, "keygen", "goroutines", 2, "--count", "2000", "--bytes", "1000", "--source", "strong")
	extra := runOnce(t, args).Extra
	if extra["workers"] != 2 || extra["chunk"] != 1000 || extra["chunks"] != 2 || extra["workers_used"] != 2 {
		t.Fatalf("extra %v; want 2 workers, chunk 1000, 2 chunks, 2 used", extra)
	}
}

func TestKeygenChunkOverride(t *testing.T) {
	args := testArgs(t, "keygen", "goroutines", 3, "--count", "1000", "--bytes", "8", "--source", "strong", "--chunk", "7")
	if extra := runOnce(t, args).Extra; extra["chunk"] != 7 || extra["chunks"] != 143 || extra["workers_used"] != 3 {
		t.Fatalf("extra %v; want chunk 7, 143 chunks, 3 used", extra)
	}
}

func TestEveryKeygenModelReportsTheCsprngAndBase32Ceiling(t *testing.T) {
	for _, model := range keygenWorkload.Models {
		args := testArgs(t, "keygen", model, 2, "--count", "500", "--bytes", "100", "--source", "strong")
		extra := runOnce(t, args).Extra
		csprng, _ := extra["csprng_ns"].(int64)
		base32, _ := extra["base32_ns"].(int64)
		if extra["ceiling"] != "csprng+base32" || csprng <= 0 || base32 <= 0 || extra["ceiling_ns"] != csprng+base32 {
			t.Errorf("%s: extra %v", model, extra)
		}
	}
}

// BenchmarkKeygenParts takes keygen apart at the quick scale (100,000 keys of 1000 bytes, one
// goroutine): each part alone, and the ways of putting them together that were compared.
// Run one at a time under perf stat, e.g.
// go test -tags libsqlite3 -run XXX -bench 'KeygenParts/alloc' -benchtime 5x
func BenchmarkKeygenParts(b *testing.B) {
	const count, keyBytes, chunk = 100_000, 1000, keygenChunkCap
	random := make([]byte, chunk*keyBytes)
	encoded := make([]byte, base32Lower.EncodedLen(keyBytes))
	keys := make([]string, count)
	parts := map[string]func(){
		"csprng-per-key": func() {
			for i := range count {
				rand.Read(random[(i%chunk)*keyBytes : (i%chunk+1)*keyBytes])
			}
		},
		"csprng-per-chunk": func() {
			for start := 0; start < count; start += chunk {
				rand.Read(random[:min(chunk, count-start)*keyBytes])
			}
		},
		// Not used by the models (the issue names crypto/rand): the userspace CSPRNG Go ships,
		// seeded from crypto/rand, as Rust's StdRng is seeded from OsRng.
		"chacha8-per-chunk": func() {
			var seed [32]byte
			rand.Read(seed[:])
			generator := mathrand.NewChaCha8(seed)
			for start := 0; start < count; start += chunk {
				generator.Read(random[:min(chunk, count-start)*keyBytes])
			}
		},
		"base32-encode": func() {
			for i := range count {
				base32Lower.Encode(encoded, random[(i%chunk)*keyBytes:(i%chunk+1)*keyBytes])
			}
		},
		"alloc-strings": func() {
			for i := range keys {
				buf := make([]byte, len(encoded))
				keys[i] = unsafe.String(unsafe.SliceData(buf), len(buf))
			}
		},
		"encode-to-string": func() {
			for i := range keys {
				keys[i] = base32Lower.EncodeToString(random[(i%chunk)*keyBytes : (i%chunk+1)*keyBytes])
			}
		},
		"encode-key": func() {
			encodeKey := encodeKeyWith(base32Lower.Encode)
			for i := range keys {
				keys[i] = encodeKey(random[(i%chunk)*keyBytes : (i%chunk+1)*keyBytes])
			}
		},
		"encode-key-tuned": func() {
			encodeKey := encodeKeyWith(firstThatRuns(keygenBase32Techniques).kernel)
			for i := range keys {
				keys[i] = encodeKey(random[(i%chunk)*keyBytes : (i%chunk+1)*keyBytes])
			}
		},
		"aes-ctr-per-chunk": func() {
			source := aesCTRSource([32]byte{1})
			for start := 0; start < count; start += chunk {
				source(random[:min(chunk, count-start)*keyBytes], start)
			}
		},
	}
	for name, part := range parts {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				part()
			}
		})
	}
	clear(keys)
}
