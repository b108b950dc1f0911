// spawn-chain: n goroutines linked by unbuffered channels pass a counter down the chain (skynet style).
package main

import (
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// defaultMaxThreads is the Go runtime's own cap on OS threads (runtime/debug.SetMaxThreads).
const defaultMaxThreads = 10000

var spawnChainWorkload = &Workload{
	Name:   "spawn-chain",
	Params: []Param{{"n", "1000", false}, {"max-threads", "", true}},
	Models: []string{"goroutines", "locked-threads"},
	ModelInfo: map[string]Model{
		"goroutines": {Family: "green", Workers: true,
			Note:             "one goroutine and one unbuffered channel per link; --workers sets GOMAXPROCS",
			StartUnavailable: map[string]string{"cold": unitsAreGoroutines, "warm": unitsAreMadePerRepetition}},
		"locked-threads": {Family: "threads", Workers: true,
			Note:  "one goroutine per link wired to its own OS thread (runtime.LockOSThread), so every waiting link holds a thread; every thread is joined (gone from /proc/self/task) inside the timed region; Go's default cap of 10000 threads is the limit (exit 3)",
			Flags: "debug.SetMaxThreads(10000), the default",
			StartUnavailable: map[string]string{
				"cold": "its units are the work itself: each link is an OS thread made and joined inside the repetition, not a pool's worker",
				"warm": unitsAreMadePerRepetition}},
	},
	Prepare: prepareSpawnChain,
}

func prepareSpawnChain(args *Args) (Repetition, error) {
	n, err := args.Int("n")
	if err != nil {
		return nil, err
	}
	runtime.GOMAXPROCS(args.Workers)
	args.Extra["gomaxprocs"] = runtime.GOMAXPROCS(0)
	lockThreads := args.Model == "locked-threads"
	if lockThreads {
		// Set explicitly, even to the default, so the case records the cap it ran under.
		maxThreads := defaultMaxThreads
		if args.String("max-threads") != "" {
			if maxThreads, err = args.Int("max-threads"); err != nil || maxThreads < 1 {
				return nil, usagef("--max-threads must be a positive integer, got %q", args.String("max-threads"))
			}
		}
		debug.SetMaxThreads(maxThreads)
		args.Extra["max_threads"] = maxThreads
	} else if args.String("max-threads") != "" {
		return nil, usagef("--max-threads is a param of spawn-chain's locked-threads model only")
	}
	return func(timer *Timer) (Result, error) {
		startValue := int(timer.Variant(0))
		timer.Start()
		chain := chainRun{n: n, start: startValue, busy: newBusyLog(timer.started, runtime.GOMAXPROCS(0))}
		answer := chain.pass(lockThreads)
		timer.Stop()
		var checksum string
		timer.Phase("checksum", func() { checksum = itoa(answer) })
		return Result{Items: int64(n), Checksum: checksum, Extra: map[string]any{
			"ceiling": "hand-off", "ceiling_ns": handOffNs(n, lockThreads),
			"live_units": chain.liveAtSend, "busy": chain.busy.intervals()}}, nil
	}, nil
}

// chainRun is one repetition's chain: n links, the start value sent into the last, and the
// proof that the chain was whole: how many links were alive when the value went in, and when
// each scheduler P (a worker: --workers sets GOMAXPROCS) first and last ran a link.
type chainRun struct {
	n, start   int
	live       atomic.Int64 // links that have started and not ended
	liveAtSend int64
	busy       *busyLog
}

// enter is a link starting to run: counted live, and its P marked busy.
func (c *chainRun) enter() {
	c.live.Add(1)
	c.busy.markOnP()
}

// leave is a link done with its send.
func (c *chainRun) leave() {
	c.busy.markOnP()
	c.live.Add(-1)
}

// sendWhenAllLive sends the start value once every link runs (is parked on its inbox): "when
// all n exist" made checkable. Until then the caller yields its P to the links still queued.
func (c *chainRun) sendWhenAllLive(last chan<- int) {
	for c.live.Load() < int64(c.n) {
		runtime.Gosched()
	}
	c.liveAtSend = c.live.Load()
	last <- c.start
}

func (c *chainRun) pass(lockThreads bool) int {
	if c.n == 0 {
		return c.start // no link to send to: the caller already holds the answer
	}
	if lockThreads {
		answer, _ := c.passDownThreadChain()
		return answer
	}
	return c.passDownChain()
}

// passDownChain creates all n links first, then sends the start value into the last one
// created, and returns with the answer. A goroutine ends by itself after its send.
func (c *chainRun) passDownChain() int {
	toCaller := make(chan int)
	next := toCaller
	for range c.n {
		inbox := make(chan int)
		go func(inbox <-chan int, outbox chan<- int) {
			c.enter()
			value := <-inbox + 1
			c.leave()
			outbox <- value
		}(inbox, next)
		next = inbox
	}
	c.sendWhenAllLive(next)
	return <-toCaller
}

// passDownThreadChain is the chain with one OS thread per link: each link's goroutine locks its
// thread and never unlocks it, so the thread exits with the goroutine instead of going back to
// the pool. Every link records its thread id before it waits, and is joined by it.
// Its OS thread is joined: the chain waits until the kernel no longer lists it.
func (c *chainRun) passDownThreadChain() (answer int, threadIDs []int) {
	n := c.n
	threadIDs = make([]int, n)
	var linksDone sync.WaitGroup
	toCaller := make(chan int)
	next := toCaller
	for link := range n {
		inbox := make(chan int)
		linksDone.Add(1)
		go func(inbox <-chan int, outbox chan<- int) {
			defer linksDone.Done()
			runtime.LockOSThread()
			threadIDs[link] = syscall.Gettid()
			c.enter()
			value := <-inbox + 1
			c.leave()
			outbox <- value
		}(inbox, next)
		next = inbox
	}
	c.sendWhenAllLive(next)
	answer = <-toCaller
	linksDone.Wait()
	for _, tid := range threadIDs {
		awaitThreadExit(tid)
	}
	return answer, threadIDs
}

// awaitThreadExit is the join Go does not offer for its own threads: a thread of this process
// that has exited is no longer listed under /proc/self/task. The one exception is the main
// thread: when a link that ran on it ends, the runtime parks it for good instead of exiting it.
func awaitThreadExit(tid int) {
	if tid == syscall.Getpid() {
		return
	}
	path := "/proc/self/task/" + itoa(tid)
	var stat syscall.Stat_t
	for syscall.Stat(path, &stat) == nil {
		runtime.Gosched()
	}
}

// handOffNs is the ceiling: two units of the model's kind, created before the clock, pass a
// counter over unbuffered channels until it has been handed over n times; they end after it.
func handOffNs(n int, lockThreads bool) int64 {
	toA, toB, done := make(chan int), make(chan int), make(chan int)
	var ready, ended sync.WaitGroup
	player := func(inbox <-chan int, outbox chan<- int) {
		defer ended.Done()
		if lockThreads {
			runtime.LockOSThread()
		}
		ready.Done()
		for count := range inbox {
			if count == n {
				done <- count
			} else {
				outbox <- count + 1
			}
		}
	}
	ready.Add(2)
	ended.Add(2)
	go player(toA, toB)
	go player(toB, toA)
	ready.Wait()
	start := time.Now()
	toA <- 0
	<-done
	elapsed := time.Since(start).Nanoseconds()
	close(toA)
	close(toB)
	ended.Wait()
	return elapsed
}
