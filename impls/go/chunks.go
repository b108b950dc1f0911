// The contract's one chunking rule and the fixed pool of worker goroutines every data-parallel model shares.
package main

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
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

// workerPool is every goroutine model's pool, made once before the ready line (protocol 3's
// warm start; Go has no cold one, its scheduler threads living for the whole process): a fixed
// set of goroutines, each waiting on its own channel for a repetition's job.
type workerPool struct {
	jobs []chan *poolJob
}

// poolJob is one repetition's work for the pool: its chunks, claimed as run describes.
type poolJob struct {
	plan     chunkPlan
	busy     *busyLog
	work     func(worker, start, end int)
	next     atomic.Int64
	done     []int // chunks per worker, each written by its own worker once
	finished sync.WaitGroup
}

// poolMadeOnce is what the warm start of a goroutine pool makes (--list).
const poolMadeOnce = "a fixed set of --workers goroutines, each locked to its own OS thread (runtime.LockOSThread), " +
	"made once before the ready line; each repetition sends every worker its job through the worker's channel " +
	"and waits for all"

// startWarmPool makes the model's pool before the ready line and books the time as start_ns.
func startWarmPool(args *Args, workers int) *workerPool {
	began := time.Now()
	pool := startPool(workers)
	args.StartNs = time.Since(began).Nanoseconds()
	return pool
}

// startPool starts the workers and returns once each waits for work. Each worker is wired to an
// OS thread of its own (runtime.LockOSThread), made as it starts: Go otherwise runs a goroutine
// on whichever of its threads is free, and starts threads lazily, whenever a P has work and no
// thread is idle (after a cgo call or a syscall held one, around a GC), so a warm worker would
// often run on a thread made during the repetition: no warm start at all, as the launcher sees
// threads. Locked, the work runs on the threads made here in every repetition.
func startPool(workers int) *workerPool {
	pool := &workerPool{jobs: make([]chan *poolJob, workers)}
	var waiting sync.WaitGroup
	waiting.Add(workers)
	for w := range workers {
		jobs := make(chan *poolJob, 1)
		pool.jobs[w] = jobs
		go func() {
			runtime.LockOSThread()
			waiting.Done()
			for job := range jobs {
				job.runAs(w)
			}
		}()
	}
	waiting.Wait()
	return pool
}

// workers is how many goroutines the pool has.
func (pool *workerPool) workers() int { return len(pool.jobs) }

// run hands every worker the job and returns once each has done its part. Worker w first takes
// chunk w, so every worker gets a chunk whenever there are at least as many chunks as workers,
// however the scheduler orders them; the rest are claimed from a shared atomic counter, so a
// worker that finishes early takes more. work(worker, start, end) processes one chunk. busy
// (nil for ceilings) gets each worker's interval from its first chunk to its last. The plan
// must be made for the pool's worker count.
func (pool *workerPool) run(plan chunkPlan, busy *busyLog, work func(worker, start, end int)) poolRun {
	job := &poolJob{plan: plan, busy: busy, work: work, done: make([]int, pool.workers())}
	job.next.Store(int64(pool.workers()))
	job.finished.Add(pool.workers())
	for _, jobs := range pool.jobs {
		jobs <- job
	}
	job.finished.Wait()
	return poolRun{chunks: plan.chunks(), workersUsed: countNonZero(job.done)}
}

// runAs is worker w's part of the job.
func (job *poolJob) runAs(w int) {
	defer job.finished.Done()
	chunks, count := job.plan.chunks(), 0
	for k := w; k < chunks; k = int(job.next.Add(1)) - 1 {
		start, end := job.plan.bounds(k)
		job.busy.begin(w)
		job.work(w, start, end)
		count++
	}
	if count > 0 {
		job.busy.finish(w)
	}
	job.done[w] = count
}

// stop ends the workers, and with them their threads (tests; a benchmark process keeps its
// pool until it exits).
func (pool *workerPool) stop() {
	for _, jobs := range pool.jobs {
		close(jobs)
	}
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
