package main

import "testing"

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

func TestStrongChecksumIsCountAndTotalChars(t *testing.T) {
	args := testArgs(t, "keygen", "goroutines", 3, "--count", "1000", "--bytes", "1000", "--source", "strong")
	if got := runOnce(t, args).Checksum; got != "1000:1600000" {
		t.Fatalf("checksum %s, want 1000:1600000", got)
	}
}

func TestStrongKeysDiffer(t *testing.T) {
	source, _, err := keygenSource(&Args{values: map[string]string{"source": "strong"}}, 16)
	if err != nil {
		t.Fatal(err)
	}
	keys := generateKeysPool(300, source, 3)
	seen := map[string]bool{}
	for _, key := range keys {
		if seen[key] {
			t.Fatalf("key %s came twice", key)
		}
		seen[key] = true
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
