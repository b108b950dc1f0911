// spawn-chain: n goroutines linked by unbuffered channels pass a counter down the chain (skynet style).
package main

import (
	"runtime"
	"runtime/debug"
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
			Note:  "one goroutine per link wired to its own OS thread (runtime.LockOSThread), so every waiting link holds a thread; Go's default cap of 10000 threads is the limit (exit 3)",
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
		return Result{Items: int64(n), Checksum: itoa(answer)}, nil
	}, nil
}

// passDownChain creates all n links first, then sends 0 into the last one created.
// With lockThreads each link keeps its OS thread while it waits: a thread per link.
func passDownChain(n int, lockThreads bool) int {
	if n == 0 {
		return 0 // no link to send to: the caller already holds the answer
	}
	toCaller := make(chan int)
	next := toCaller
	for range n {
		inbox := make(chan int)
		go func(inbox <-chan int, outbox chan<- int) {
			if lockThreads {
				// Never unlocked: the thread exits with the goroutine instead of going back to the pool.
				runtime.LockOSThread()
			}
			outbox <- <-inbox + 1
		}(inbox, next)
		next = inbox
	}
	next <- 0
	return <-toCaller
}
