package main

import (
	"maps"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
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

// testPool is a warm pool for plan's workers, stopped when the test ends.
func testPool(t *testing.T, workers int) *workerPool {
	pool := startPool(workers)
	t.Cleanup(pool.stop)
	return pool
}

func TestPoolProcessesEveryChunkOnce(t *testing.T) {
	plan := planChunks(100_003, 3, 1000, 0)
	seen := make([]atomic.Int32, plan.total)
	run := testPool(t, 3).run(plan, nil, func(_, start, end int) {
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
	run := testPool(t, 4).run(plan, nil, func(worker, start, _ int) { firstChunkOf[worker] = start })
	if run.workersUsed != 4 || !slices.Equal(firstChunkOf, []int{0, 1, 2, 3}) {
		t.Fatalf("%d workers used; worker w took chunk %v", run.workersUsed, firstChunkOf)
	}
}

func TestWorkersBeyondTheChunksAreCountedIdle(t *testing.T) {
	if run := testPool(t, 5).run(planChunks(2, 5, sdesChunkCap, 0), nil, func(_, _, _ int) {}); run.workersUsed != 2 {
		t.Fatalf("%d workers used for 2 chunks", run.workersUsed)
	}
}

// The warm pool is made once: a repetition hands its work to the same goroutines (none is made
// while it runs), and they run on threads that existed before the first repetition (the
// launcher's check: at most half the repetitions' CPU on threads made after the pool).
func TestOnePoolServesEveryRepetition(t *testing.T) {
	pool := testPool(t, 3)
	cpuBefore := threadCPU(t)
	goroutines := runtime.NumGoroutine()
	for repetition := range 5 {
		var seenDuring atomic.Int64
		run := pool.run(planChunks(30, 3, 1, 0), nil, func(_, _, _ int) {
			seenDuring.Store(int64(runtime.NumGoroutine()))
			for began := time.Now(); time.Since(began) < time.Millisecond; { // CPU on the worker's thread
			}
		})
		// More goroutines than before would be goroutines made for the repetition; fewer are an
		// earlier test's goroutines still ending (a fresh machine showed 11 during, 13 before).
		if run.workersUsed != 3 || seenDuring.Load() > int64(goroutines) {
			t.Fatalf("repetition %d: %d workers used, %d goroutines while it ran, %d before",
				repetition, run.workersUsed, seenDuring.Load(), goroutines)
		}
	}
	var total, onNewThreads int64
	for id, cpu := range threadCPU(t) {
		before, existed := cpuBefore[id]
		total += cpu - before
		if !existed {
			onNewThreads += cpu
		}
	}
	if onNewThreads > total/2 {
		t.Fatalf("%d of %d ns of CPU ran on threads made after the pool", onNewThreads, total)
	}
}

// A locked pool's workers each hold a thread of their own, made before the first repetition,
// and every repetition runs on those same threads.
func TestALockedPoolRunsOnTheThreadsItMadeOnce(t *testing.T) {
	pool := startPool(3)
	t.Cleanup(pool.stop)
	threadsOf := func() map[int]bool {
		seen := map[int]bool{}
		var lock sync.Mutex
		pool.run(planChunks(3, 3, 1, 0), nil, func(_, _, _ int) {
			lock.Lock()
			seen[syscall.Gettid()] = true
			lock.Unlock()
		})
		return seen
	}
	first := threadsOf()
	for range 4 {
		if again := threadsOf(); !maps.Equal(first, again) || len(first) != 3 {
			t.Fatalf("worker threads %v, then %v", first, again)
		}
	}
}

// threadCPU is each thread's CPU time so far, by thread id (/proc/self/task/*/schedstat).
func threadCPU(t *testing.T) map[string]int64 {
	t.Helper()
	entries, err := os.ReadDir("/proc/self/task")
	if err != nil {
		t.Skip("no /proc/self/task here")
	}
	cpu := map[string]int64{}
	for _, entry := range entries {
		stat, err := os.ReadFile("/proc/self/task/" + entry.Name() + "/schedstat")
		if err != nil {
			continue // the thread ended meanwhile
		}
		fields := strings.Fields(string(stat))
		if ns, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
			cpu[entry.Name()] = ns
		}
	}
	return cpu
}
