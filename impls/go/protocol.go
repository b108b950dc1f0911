// Protocol helper: parses the harness's command line, times repetitions and prints JSON lines.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Result is what one timed repetition reports besides its duration.
type Result struct {
	Items    int64
	Checksum string
	Extra    map[string]any
}

// Timer brackets the work itself, so each workload decides where loading ends and hashing begins.
type Timer struct {
	started time.Time
	elapsed time.Duration
	running bool
}

func (t *Timer) Start() { t.started, t.running = time.Now(), true }

func (t *Timer) Stop() {
	if t.running {
		t.elapsed += time.Since(t.started) // time.Since reads Go's monotonic clock
		t.running = false
	}
}

// Repetition runs the work once; it calls timer.Start/Stop around the timed region only.
type Repetition func(timer *Timer) (Result, error)

// Model describes one way of running a workload, as --list shows it.
type Model struct {
	Family  string `json:"family"`
	Workers bool   `json:"workers,omitempty"`
	Note    string `json:"note,omitempty"`
	Flags   string `json:"flags,omitempty"`
}

// Workload is one spec: its parameters with their defaults and its models.
type Workload struct {
	Name      string
	Params    []Param
	Models    []string
	ModelInfo map[string]Model
	// Prepare loads inputs outside the timed region and returns the repetition to time.
	Prepare func(args *Args) (Repetition, error)
}

// Param is a command-line parameter; an empty Default means the harness must pass it
// unless the param is Optional (the model then picks and records its own default).
type Param struct {
	Name     string
	Default  string
	Optional bool
}

// Args are the parsed command-line values of one call.
type Args struct {
	Workload string
	Model    string
	Workers  int
	Warmup   int
	Repeat   int
	values   map[string]string
	// Extra is filled by Prepare with the flags and settings every JSON line must carry.
	Extra map[string]any
}

// UsageError means bad arguments: exit 2 with one line on stderr.
type UsageError struct{ Message string }

func (e *UsageError) Error() string { return e.Message }

// LimitError means a resource limit stopped the work: exit 3 with the runtime's own message.
type LimitError struct{ Detail string }

func (e *LimitError) Error() string { return e.Detail }

func usagef(format string, a ...any) error { return &UsageError{fmt.Sprintf(format, a...)} }

func (a *Args) String(name string) string { return a.values[name] }

func (a *Args) Int(name string) (int, error) {
	value, err := strconv.Atoi(a.values[name])
	if err != nil || value < 0 {
		return 0, usagef("--%s must be a non-negative integer, got %q", name, a.values[name])
	}
	return value, nil
}

func (a *Args) Uint64(name string) (uint64, error) {
	value, err := strconv.ParseUint(a.values[name], 10, 64)
	if err != nil {
		return 0, usagef("--%s must be a non-negative integer, got %q", name, a.values[name])
	}
	return value, nil
}

// parseArgs reads `<workload> --model M [--param V ...] [--workers N] --warmup W --repeat R`.
func parseArgs(argv []string, workloads map[string]*Workload) (*Args, *Workload, error) {
	if len(argv) == 0 {
		return nil, nil, usagef("usage: run <workload> --model M [--param V ...] --warmup W --repeat R, or run --list")
	}
	workload, ok := workloads[argv[0]]
	if !ok {
		return nil, nil, usagef("unknown workload %q; valid: %s", argv[0], strings.Join(workloadNames(workloads), ", "))
	}
	args := &Args{Workload: workload.Name, Workers: runtime.NumCPU(), Repeat: 1,
		values: map[string]string{}, Extra: map[string]any{}}
	for _, p := range workload.Params {
		args.values[p.Name] = p.Default
	}
	known := map[string]bool{"model": true, "workers": true, "warmup": true, "repeat": true}
	for _, p := range workload.Params {
		known[p.Name] = true
	}
	workersGiven := false
	rest := argv[1:]
	for len(rest) > 0 {
		flag := rest[0]
		name, isFlag := strings.CutPrefix(flag, "--")
		if !isFlag || !known[name] {
			return nil, nil, usagef("unknown argument %q for %s; valid: --%s", flag, workload.Name, strings.Join(sortedKeys(known), ", --"))
		}
		if len(rest) < 2 {
			return nil, nil, usagef("%s needs a value", flag)
		}
		value := rest[1]
		rest = rest[2:]
		var err error
		switch name {
		case "model":
			args.Model = value
		case "workers":
			args.Workers, err = strconv.Atoi(value)
			if err != nil || args.Workers < 1 {
				return nil, nil, usagef("--workers must be a positive integer, got %q", value)
			}
			workersGiven = true
		case "warmup":
			args.Warmup, err = strconv.Atoi(value)
			if err != nil || args.Warmup < 0 {
				return nil, nil, usagef("--warmup must be a non-negative integer, got %q", value)
			}
		case "repeat":
			args.Repeat, err = strconv.Atoi(value)
			if err != nil || args.Repeat < 1 {
				return nil, nil, usagef("--repeat must be a positive integer, got %q", value)
			}
		default:
			args.values[name] = value
		}
	}
	if args.Model == "" && len(workload.Models) == 1 {
		args.Model = workload.Models[0] // noop has one model; the harness may leave it out
	}
	info, ok := workload.ModelInfo[args.Model]
	if !ok {
		return nil, nil, usagef("unknown model %q for %s; valid: %s", args.Model, workload.Name, strings.Join(workload.Models, ", "))
	}
	if workersGiven && !info.Workers {
		return nil, nil, usagef("model %s of %s takes no --workers", args.Model, workload.Name)
	}
	for _, p := range workload.Params {
		if args.values[p.Name] == "" && !p.Optional {
			return nil, nil, usagef("%s needs --%s", workload.Name, p.Name)
		}
	}
	if info.Workers {
		args.Extra["workers"] = args.Workers
	}
	// GOMAXPROCS decides how many goroutines run at once, so every case records it.
	args.Extra["gomaxprocs"] = runtime.GOMAXPROCS(0)
	return args, workload, nil
}

// runCase loads the inputs, runs the warm-up and prints one JSON line per timed repetition.
func runCase(args *Args, workload *Workload) error {
	repetition, err := workload.Prepare(args)
	if err != nil {
		return err
	}
	// The Go version and GOGC are part of every case: GC pacing changes what allocation costs.
	args.Extra["go"] = runtime.Version()
	if gogc := os.Getenv("GOGC"); gogc != "" {
		args.Extra["GOGC"] = gogc
	}
	if memlimit := os.Getenv("GOMEMLIMIT"); memlimit != "" {
		args.Extra["GOMEMLIMIT"] = memlimit
	}
	encoder := json.NewEncoder(os.Stdout)
	for i := 0; i < args.Warmup+args.Repeat; i++ {
		timer := &Timer{}
		result, err := repetition(timer)
		if err != nil {
			return err
		}
		if i < args.Warmup {
			continue
		}
		extra := map[string]any{}
		for k, v := range args.Extra {
			extra[k] = v
		}
		for k, v := range result.Extra {
			extra[k] = v
		}
		line := struct {
			Rep      int            `json:"rep"`
			Ns       int64          `json:"ns"`
			Items    int64          `json:"items"`
			Checksum string         `json:"checksum"`
			Extra    map[string]any `json:"extra,omitempty"`
		}{i - args.Warmup, timer.elapsed.Nanoseconds(), result.Items, result.Checksum, extra}
		if err := encoder.Encode(line); err != nil {
			return err
		}
	}
	return nil
}

// exitFor turns an error into the protocol's exit codes: 2 bad arguments, 3 a limit, 1 a crash.
func exitFor(err error) int {
	var usage *UsageError
	var limit *LimitError
	switch {
	case errors.As(err, &usage):
		fmt.Fprintln(os.Stderr, usage.Message)
		return 2
	case errors.As(err, &limit):
		line, _ := json.Marshal(map[string]string{"error": "limit", "detail": limit.Detail})
		fmt.Println(string(line))
		return 3
	default:
		fmt.Fprintln(os.Stderr, "error:", err)
		return 1
	}
}
