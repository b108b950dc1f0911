package main

import (
	"encoding/hex"
	"testing"
)

func TestFnv1a64OfEmptyIsTheOffsetBasis(t *testing.T) {
	if got := fnv1a64(nil); got != 0xcbf29ce484222325 {
		t.Fatalf("fnv1a64(\"\") = %x", got)
	}
}

func TestFnv1a64OfA(t *testing.T) {
	if got := fnv1a64([]byte("a")); got != 0xaf63dc4c8601ec8c {
		t.Fatalf("fnv1a64(\"a\") = %x", got)
	}
}

func TestSplitmix64BytesSeed1Index0(t *testing.T) {
	got := hex.EncodeToString(splitmix64Bytes(nil, 1, 0, 16))
	if got != "c15c0289ec2d0a9167ec8e65a18debbe" {
		t.Fatalf("bytes(1, 0, 16) = %s", got)
	}
}

func TestSplitmix64BytesTruncatesToN(t *testing.T) {
	long := splitmix64Bytes(nil, 9, 4, 24)
	short := splitmix64Bytes(nil, 9, 4, 13)
	if len(short) != 13 || hex.EncodeToString(short) != hex.EncodeToString(long[:13]) {
		t.Fatalf("bytes(9, 4, 13) = %x, want the first 13 of %x", short, long)
	}
}
