// spawn-chain: n goroutines linked by unbuffered channels pass a counter down the chain (skynet style).
package main

import (
	"runtime"
	"runtime/debug"
	"sync"
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
			Note: "one goroutine and one unbuffered channel per link; --workers sets GOMAXPROCS"},
		"locked-threads": {Family: "threads", Workers: true,
			Note:  "one goroutine per link wired to its own OS thread (runtime.LockOSThread), so every waiting link holds a thread; every thread is joined (gone from /proc/self/task) inside the timed region; Go's default cap of 10000 threads is the limit (exit 3)",
			Flags: "debug.SetMaxThreads(10000), the default"},
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
		timer.Start()
		answer := passDownChain(n, lockThreads)
		timer.Stop()
		return Result{Items: int64(n), Checksum: itoa(answer), Extra: map[string]any{
			"ceiling": "hand-off", "ceiling_ns": handOffNs(n, lockThreads)}}, nil
	}, nil
}

// passDownChain creates all n links first, then sends 0 into the last one created, and returns
// once every link has ended. A goroutine ends by itself after its send; a locked link's OS
// thread is joined: passDownChain waits until the kernel no longer lists it.
func passDownChain(n int, lockThreads bool) int {
	if n == 0 {
		return 0 // no link to send to: the caller already holds the answer
	}
	if lockThreads {
		answer, _ := passDownThreadChain(n)
		return answer
	}
	toCaller := make(chan int)
	next := toCaller
	for range n {
		inbox := make(chan int)
		go func(inbox <-chan int, outbox chan<- int) {
			outbox <- <-inbox + 1
		}(inbox, next)
		next = inbox
	}
	next <- 0
	return <-toCaller
}

// passDownThreadChain is the chain with one OS thread per link: each link's goroutine locks its
// thread and never unlocks it, so the thread exits with the goroutine instead of going back to
// the pool. Every link records its thread id before it waits, and is joined by it.
func passDownThreadChain(n int) (answer int, threadIDs []int) {
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
			outbox <- <-inbox + 1
		}(inbox, next)
		next = inbox
	}
	next <- 0
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
