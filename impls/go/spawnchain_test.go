package main

import (
	"os"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

// newChain is a chain of n links from start, as one repetition makes it.
func newChain(n, start int) *chainRun {
	return &chainRun{n: n, start: start, busy: newBusyLog(time.Now(), runtime.GOMAXPROCS(0))}
}

func passDownChain(n int, lockThreads bool) int { return newChain(n, 0).pass(lockThreads) }

// Protocol 2: the start value goes in instead of 0, the answer is start + n, every link was
// live when it went in, and the busy intervals name scheduler Ps.
func TestStartValueVariantAndLiveUnits(t *testing.T) {
	for _, model := range spawnChainWorkload.Models {
		args := testArgs(t, "spawn-chain", model, 2, "--n", "1000")
		results := runVariants(t, args, 123456, 0)
		for i, want := range []string{"124456", "1000"} {
			extra := results[i].Extra
			busy := extra["busy"].([][3]int64)
			if results[i].Checksum != want || extra["live_units"] != int64(1000) || len(busy) == 0 || busy[0][0] > 1 {
				t.Errorf("%s variant %d: %s, extra %v", model, i, results[i].Checksum, extra)
			}
		}
	}
	if got := newChain(0, 77).pass(false); got != 77 {
		t.Errorf("an empty chain from 77 answered %d", got)
	}
}

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

func TestEveryLockedLinkHadItsOwnThreadAndItHasExited(t *testing.T) {
	_, threadIDs := newChain(200, 0).passDownThreadChain()
	distinct := map[int]bool{}
	for _, tid := range threadIDs {
		distinct[tid] = true
		if _, err := os.Stat("/proc/self/task/" + itoa(tid)); err == nil && tid != os.Getpid() {
			t.Fatalf("thread %d of a link still exists after the chain", tid)
		}
	}
	if len(distinct) != 200 {
		t.Fatalf("200 links ran on %d threads", len(distinct))
	}
}

func TestEverySpawnModelReportsTheHandOffCeiling(t *testing.T) {
	for _, model := range spawnChainWorkload.Models {
		extra := runOnce(t, testArgs(t, "spawn-chain", model, 2, "--n", "300")).Extra
		if ns, _ := extra["ceiling_ns"].(int64); extra["ceiling"] != "hand-off" || ns <= 0 {
			t.Errorf("%s: extra %v", model, extra)
		}
	}
}

func TestHandOffCeilingEndsForZeroHandOffs(t *testing.T) {
	if ns := handOffNs(0, false); ns <= 0 {
		t.Fatalf("%d ns", ns)
	}
}

// BenchmarkChainLinkMemory parks 100,000 links (every goroutine created and waiting, as just
// before the pass) and reports what one link holds: its stack, its share of the heap (the g
// itself, the channel, the sudog it waits on) and the runtime's starting stack size, then
// runs the pass. Run in a fresh process: go test -run XXX -bench ChainLinkMemory -benchtime 1x
func BenchmarkChainLinkMemory(b *testing.B) {
	const n = 100_000
	for b.Loop() {
		var before, parked runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		toCaller := make(chan int)
		next := toCaller
		for range n {
			inbox := make(chan int)
			go func(inbox <-chan int, outbox chan<- int) { outbox <- <-inbox + 1 }(inbox, next)
			next = inbox
		}
		sample := []metrics.Sample{{Name: "/gc/stack/starting-size:bytes"}, {Name: "/sched/goroutines/waiting:goroutines"}}
		for metrics.Read(sample); sample[1].Value.Uint64() < n; metrics.Read(sample) {
			runtime.Gosched() // until every link has run up to its receive and parked
		}
		runtime.ReadMemStats(&parked)
		b.ReportMetric(float64(parked.StackInuse-before.StackInuse)/n, "stack-B/link")
		b.ReportMetric(float64(parked.HeapInuse-before.HeapInuse)/n, "heap-B/link")
		b.ReportMetric(float64(parked.Sys-before.Sys)/n, "sys-B/link")
		b.ReportMetric(float64(sample[0].Value.Uint64()), "starting-stack-B")
		next <- 0
		if got := <-toCaller; got != n {
			b.Fatalf("answer %d", got)
		}
	}
}
