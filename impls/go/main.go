// Command parbench-go runs the parbench workloads in Go, speaking the harness's protocol.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
)

// buildFlags is set by the build script with -ldflags, so --list says how the binary was made.
var buildFlags = "go build -trimpath (gc defaults: -O, inlining on), CGO_ENABLED=1"

func allWorkloads() map[string]*Workload {
	workloads := map[string]*Workload{}
	for _, w := range []*Workload{noopWorkload, keygenWorkload, sdesWorkload, batchJobWorkload,
		spawnChainWorkload, coroutineSwarmWorkload, echoServerWorkload} {
		workloads[w.Name] = w
	}
	return workloads
}

// noopWorkload does nothing in the timed region: the harness uses it to measure boot and overhead.
var noopWorkload = &Workload{
	Name:      "noop",
	Models:    []string{"seq"},
	ModelInfo: map[string]Model{"seq": {Family: "seq"}},
	Prepare: func(args *Args) (Repetition, error) {
		return func(timer *Timer) (Result, error) {
			timer.Start()
			timer.Stop()
			return Result{Checksum: "noop"}, nil
		}, nil
	},
}

func main() {
	workloads := allWorkloads()
	if len(os.Args) == 2 && os.Args[1] == "--list" {
		printList(workloads)
		return
	}
	args, workload, err := parseArgs(os.Args[1:], workloads)
	if err == nil && workload.Serve != nil {
		err = workload.Serve(args, os.Stdin, os.Stdout)
	} else if err == nil {
		err = runCase(args, workload, os.Stdin, os.Stdout)
	}
	if err != nil {
		os.Exit(exitFor(err))
	}
}

func printList(workloads map[string]*Workload) {
	type listed struct {
		Params  []string          `json:"params"`
		Models  map[string]Model  `json:"models"`
		Kernels map[string]string `json:"kernels,omitempty"`
	}
	entries := map[string]listed{}
	for name, w := range workloads {
		params := []string{}
		for _, p := range w.Params {
			params = append(params, p.Name)
		}
		var kernels map[string]string
		if w.Kernels != nil {
			kernels = w.Kernels()
		}
		entries[name] = listed{params, w.ModelInfo, kernels}
	}
	list := map[string]any{
		"runtime":   "go",
		"version":   runtime.Version(),
		"flags":     fmt.Sprintf("%s; GOMAXPROCS=%d by default (--workers sets it for spawn-chain and coroutine-swarm)", buildFlags, runtime.GOMAXPROCS(0)),
		"sources":   map[string]string{"strong": "portable kernel: crypto/rand.Read (getrandom(2), the kernel CSPRNG); tuned kernel: an AES-128-CTR keystream per worker, keyed from crypto/rand", "seeded": "SplitMix64"},
		"workloads": entries,
	}
	out, _ := json.Marshal(list)
	fmt.Println(string(out))
}

func itoa(i int) string { return strconv.Itoa(i) }

func workloadNames(workloads map[string]*Workload) []string {
	names := []string{}
	for name := range workloads {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

func sortedKeys[V any](set map[string]V) []string {
	keys := []string{}
	for k := range set {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
