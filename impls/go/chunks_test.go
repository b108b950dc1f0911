package main

import (
	"slices"
	"sync/atomic"
	"testing"
)

func TestChunkOfThreeUnitsForTwoWorkersIsTwo(t *testing.T) {
	plan := planChunks(3, 2, sdesChunkCap, 0)
	if plan.chunk != 2 || plan.chunks() != 2 {
		t.Fatalf("chunk %d, %d chunks; want 2 and 2", plan.chunk, plan.chunks())
	}
}

func TestTenMiBForTwoWorkersIsTenChunksOfOneMiB(t *testing.T) {
	plan := planChunks(10<<20, 2, sdesChunkCap, 0)
	if plan.chunk != 1<<20 || plan.chunks() != 10 {
		t.Fatalf("chunk %d, %d chunks; want 1 MiB and 10", plan.chunk, plan.chunks())
	}
}

func TestKeygenChunksAreCappedAt1024Keys(t *testing.T) {
	if plan := planChunks(1_000_000, 2, keygenChunkCap, 0); plan.chunk != 1024 || plan.chunks() != 977 {
		t.Fatalf("chunk %d, %d chunks; want 1024 and 977", plan.chunk, plan.chunks())
	}
	if plan := planChunks(2000, 2, keygenChunkCap, 0); plan.chunk != 1000 || plan.chunks() != 2 {
		t.Fatalf("chunk %d, %d chunks; want 1000 and 2", plan.chunk, plan.chunks())
	}
}

func TestChunkOverrideWins(t *testing.T) {
	if plan := planChunks(10<<20, 2, sdesChunkCap, 4096); plan.chunk != 4096 || plan.chunks() != 2560 {
		t.Fatalf("chunk %d, %d chunks; want 4096 and 2560", plan.chunk, plan.chunks())
	}
}

func TestFewerUnitsThanWorkersGiveOneUnitChunks(t *testing.T) {
	if plan := planChunks(3, 8, sdesChunkCap, 0); plan.chunk != 1 || plan.chunks() != 3 {
		t.Fatalf("chunk %d, %d chunks; want 1 and 3", plan.chunk, plan.chunks())
	}
}

func TestPoolProcessesEveryChunkOnce(t *testing.T) {
	plan := planChunks(100_003, 3, 1000, 0)
	seen := make([]atomic.Int32, plan.total)
	run := runPool(plan, nil, func(_, start, end int) {
		for i := start; i < end; i++ {
			seen[i].Add(1)
		}
	})
	for i := range seen {
		if seen[i].Load() != 1 {
			t.Fatalf("unit %d processed %d times", i, seen[i].Load())
		}
	}
	if run.chunks != 101 {
		t.Fatalf("%d chunks, want 101", run.chunks)
	}
}

func TestEveryWorkerTakesAChunkWhenThereAreEnough(t *testing.T) {
	plan := planChunks(4, 4, sdesChunkCap, 0)
	firstChunkOf := make([]int, plan.workers)
	run := runPool(plan, nil, func(worker, start, _ int) { firstChunkOf[worker] = start })
	if run.workersUsed != 4 || !slices.Equal(firstChunkOf, []int{0, 1, 2, 3}) {
		t.Fatalf("%d workers used; worker w took chunk %v", run.workersUsed, firstChunkOf)
	}
}

func TestWorkersBeyondTheChunksAreCountedIdle(t *testing.T) {
	if run := runPool(planChunks(2, 5, sdesChunkCap, 0), nil, func(_, _, _ int) {}); run.workersUsed != 2 {
		t.Fatalf("%d workers used for 2 chunks", run.workersUsed)
	}
}
