// spawn-chain: n goroutines linked by unbuffered channels pass a counter down the chain (skynet style).
package main

import "runtime"

var spawnChainWorkload = &Workload{
	Name:   "spawn-chain",
	Params: []Param{{"n", "1000", false}},
	Models: []string{"goroutines"},
	ModelInfo: map[string]Model{
		"goroutines": {Family: "green", Workers: true,
			Note: "one goroutine and one unbuffered channel per link; --workers sets GOMAXPROCS"},
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
	return func(timer *Timer) (Result, error) {
		timer.Start()
		answer := passDownChain(n)
		timer.Stop()
		return Result{Items: int64(n), Checksum: itoa(answer)}, nil
	}, nil
}

// passDownChain creates all n links first, then sends 0 into the last one created.
func passDownChain(n int) int {
	if n == 0 {
		return 0 // no link to send to: the caller already holds the answer
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
