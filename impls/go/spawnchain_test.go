package main

import "testing"

func TestTheAnswerIsN(t *testing.T) {
	for _, n := range []int{0, 1, 2, 1000, 12_345} {
		if got := passDownChain(n, false); got != n {
			t.Errorf("chain of %d answered %d", n, got)
		}
	}
}

func TestSpawnChainChecksumIsNInDecimal(t *testing.T) {
	args := testArgs(t, "spawn-chain", "goroutines", 3, "--n", "4321")
	if result := runOnce(t, args); result.Checksum != "4321" || result.Items != 4321 {
		t.Fatalf("got %+v", result)
	}
}

func TestLockedThreadLinksAnswerN(t *testing.T) {
	for _, n := range []int{1, 2, 500} {
		if got := passDownChain(n, true); got != n {
			t.Errorf("chain of %d threads answered %d", n, got)
		}
	}
}

func TestMaxThreadsBelongsToLockedThreadsOnly(t *testing.T) {
	args := testArgs(t, "spawn-chain", "goroutines", 2, "--n", "10", "--max-threads", "50")
	if _, err := spawnChainWorkload.Prepare(args); exitFor(err) != 2 {
		t.Fatalf("got %v", err)
	}
}
