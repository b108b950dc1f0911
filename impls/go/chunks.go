// The contract's one chunking rule and the fixed pool of worker goroutines every data-parallel model shares.
package main

import (
	"sync"
	"sync/atomic"
)

// chunkPlan splits `total` units (bytes, keys) into chunks of `chunk` units for `workers` workers.
type chunkPlan struct{ total, chunk, workers int }

// planChunks applies chunk = min(unitCap, ceil(total / workers)); override > 0 is --chunk.
func planChunks(total, workers, unitCap, override int) chunkPlan {
	chunk := override
	if chunk <= 0 {
		chunk = min(unitCap, (total+workers-1)/workers)
	}
	return chunkPlan{total: total, chunk: max(chunk, 1), workers: workers}
}

func (p chunkPlan) chunks() int { return (p.total + p.chunk - 1) / p.chunk }

// bounds is chunk k's range [start, end) of units.
func (p chunkPlan) bounds(k int) (start, end int) {
	start = k * p.chunk
	return start, min(start+p.chunk, p.total)
}

// poolRun is what one run of the pool really did, for the JSON line.
type poolRun struct{ chunks, workersUsed int }

// extra is the contract's account of what ran: workers asked, chunk size, chunks, workers used.
func (p chunkPlan) extra(run poolRun) map[string]any {
	return map[string]any{"workers": p.workers, "chunk": p.chunk, "chunks": run.chunks, "workers_used": run.workersUsed}
}

// runPool starts p.workers goroutines and returns once every one has ended. Worker w first takes
// chunk w, so every worker gets a chunk whenever there are at least as many chunks as workers,
// however the scheduler orders their start; the rest are claimed from a shared atomic counter,
// so a worker that finishes early takes more. work(worker, start, end) processes one chunk.
// busy (nil for ceilings) gets each worker's interval from its first chunk to its last.
func runPool(p chunkPlan, busy *busyLog, work func(worker, start, end int)) poolRun {
	chunks := p.chunks()
	next := atomic.Int64{}
	next.Store(int64(p.workers))
	done := make([]int, p.workers) // chunks per worker, each written by its own worker once
	var wg sync.WaitGroup
	for w := range p.workers {
		wg.Go(func() {
			count := 0
			for k := w; k < chunks; k = int(next.Add(1)) - 1 {
				start, end := p.bounds(k)
				busy.begin(w)
				work(w, start, end)
				count++
			}
			if count > 0 {
				busy.finish(w)
			}
			done[w] = count
		})
	}
	wg.Wait()
	return poolRun{chunks: chunks, workersUsed: countNonZero(done)}
}

// runInline is the sequential models' loop over the same chunks, on the calling goroutine.
func runInline(p chunkPlan, work func(worker, start, end int)) {
	for k := range p.chunks() {
		start, end := p.bounds(k)
		work(0, start, end)
	}
}

func countNonZero(counts []int) int {
	n := 0
	for _, c := range counts {
		if c > 0 {
			n++
		}
	}
	return n
}
