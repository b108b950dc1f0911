// Protocol helper: parses the harness's command line, times repetitions and prints JSON lines.
package main

import (
	"bufio"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	_ "unsafe" // for go:linkname
)

// Result is what one timed repetition reports besides its duration.
type Result struct {
	Items    int64
	Checksum string
	Extra    map[string]any
}

// Timer brackets the work itself, so each workload decides where loading ends and hashing
// begins. It also carries what protocol 2 asks of every repetition: the variant it runs, the
// process's CPU time inside the timed region, and the phases between two lines (checksum_ns,
// prepare_ns, cleanup_ns). The zero Timer is usable (tests): no variant, so the base value.
type Timer struct {
	started time.Time
	elapsed time.Duration
	running bool
	// cpuUser and cpuSys accumulate getrusage(RUSAGE_SELF) across Start/Stop: every thread of
	// the process counts, the GC's workers and the runtime's own threads included.
	cpuUser, cpuSys     time.Duration
	cpuUserAt, cpuSysAt time.Duration
	phases              map[string]int64
	variant             uint64
	hasVariant          bool
}

func (t *Timer) Start() {
	t.started, t.running = time.Now(), true
	t.cpuUserAt, t.cpuSysAt = processCPU()
}

func (t *Timer) Stop() {
	if t.running {
		user, sys := processCPU()          // read before the clock stops, as the protocol asks
		t.elapsed += time.Since(t.started) // time.Since reads Go's monotonic clock
		t.running = false
		t.cpuUser += user - t.cpuUserAt
		t.cpuSys += sys - t.cpuSysAt
	}
}

// Variant is this repetition's value, read from stdin before it started (protocol 3), or base
// when none was given (tests).
func (t *Timer) Variant(base uint64) uint64 {
	if t.hasVariant {
		return t.variant
	}
	return base
}

// Phase runs f outside the timed region and reports its duration as extra.<name>_ns
// ("checksum", "prepare", "cleanup"), so the time between two lines is accounted for.
func (t *Timer) Phase(name string, f func()) {
	start := time.Now()
	f()
	if t.phases == nil {
		t.phases = map[string]int64{}
	}
	t.phases[name+"_ns"] += time.Since(start).Nanoseconds()
}

// processCPU is the whole process's user and system CPU time so far. Go has no process
// models here, so RUSAGE_CHILDREN would always be zero and is not read.
func processCPU() (user, sys time.Duration) {
	var usage syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &usage); err != nil {
		return 0, 0
	}
	return time.Duration(usage.Utime.Nano()), time.Duration(usage.Stime.Nano())
}

// busyLog is extra.busy: per worker, the first start and the last end of its work, in ns from
// the repetition's clock start. Each slot is written only by its own worker (a pool goroutine,
// or whatever runs on one scheduler P while pinned to it), so it needs no lock.
type busyLog struct {
	origin     time.Time
	start, end []int64
}

func newBusyLog(origin time.Time, workers int) *busyLog {
	b := &busyLog{origin: origin, start: make([]int64, workers), end: make([]int64, workers)}
	for w := range b.start {
		b.start[w] = -1
	}
	return b
}

// begin marks worker w starting a unit of work; the first call opens its interval.
func (b *busyLog) begin(w int) {
	if b != nil && b.start[w] < 0 {
		b.start[w] = time.Since(b.origin).Nanoseconds()
	}
}

// finish marks worker w ending a unit of work; the last call closes its interval.
func (b *busyLog) finish(w int) {
	if b != nil {
		b.end[w] = time.Since(b.origin).Nanoseconds()
	}
}

// Go's scheduler processors (P) are what GOMAXPROCS counts, and what --workers sets for the
// models without a pool; the runtime does not export which one runs a goroutine, but procPin
// (kept linkable by the runtime on purpose, go.dev/issue/67401) returns its id and keeps the
// goroutine on it, without preemption, until procUnpin.
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// markOnP records a moment of work on the P the caller runs on, as that P's worker. While
// pinned nothing else runs on the P, so its slot has one writer at a time.
func (b *busyLog) markOnP() {
	p := procPin()
	now := time.Since(b.origin).Nanoseconds()
	if p < len(b.start) {
		if b.start[p] < 0 {
			b.start[p] = now
		}
		b.end[p] = now
	}
	procUnpin()
}

// intervals is extra.busy: [[worker, start_ns, end_ns], ...] for every worker that worked.
func (b *busyLog) intervals() [][3]int64 {
	out := [][3]int64{}
	for w, start := range b.start {
		if start >= 0 {
			out = append(out, [3]int64{int64(w), start, max(start, b.end[w])})
		}
	}
	return out
}

// Repetition runs the work once; it calls timer.Start/Stop around the timed region only.
type Repetition func(timer *Timer) (Result, error)

// Model describes one way of running a workload, as --list shows it. Start holds the start
// modes it offers (protocol 3: "cold", "warm") with what each makes and where, and
// StartUnavailable why a mode cannot apply; a model with neither takes no --start.
type Model struct {
	Family           string            `json:"family"`
	Workers          bool              `json:"workers,omitempty"`
	Note             string            `json:"note,omitempty"`
	Flags            string            `json:"flags,omitempty"`
	Detail           string            `json:"detail,omitempty"` // a server's model_detail (echo-server)
	Start            map[string]string `json:"start,omitempty"`
	StartUnavailable map[string]string `json:"start_unavailable,omitempty"`
}

// Why Go's models lack a start mode, for --list and for the exit 2 on --start.
const (
	goroutinesAlwaysWarm = "Go's scheduler threads live for the whole process: goroutines made inside a repetition " +
		"would run on threads an earlier repetition made, so its workers are always warm"
	unitsAreGoroutines = "its units are the work itself, one goroutine each, made and ended in every repetition " +
		"on Go's scheduler threads, which live for the whole process: no repetition makes or ends those threads"
	unitsAreMadePerRepetition = "its units are the work itself, made for it in each repetition: " +
		"there is no pool to make before the ready line"
)

// startMode is the mode a model runs: --start if it offers it, else its default (cold where
// offered, else the only one); "" for a model that takes no --start (it is ready "none").
func startMode(workload, model string, info Model, asked string) (string, error) {
	if asked == "" {
		if _, ok := info.Start["cold"]; ok {
			return "cold", nil
		}
		for mode := range info.Start {
			return mode, nil
		}
		return "", nil
	}
	if _, ok := info.Start[asked]; ok {
		return asked, nil
	}
	if asked != "cold" && asked != "warm" {
		return "", usagef("--start must be cold or warm, got %q", asked)
	}
	why := info.StartUnavailable[asked]
	if why == "" {
		why = "it has no workers"
	}
	if len(info.Start) == 0 {
		return "", usagef("model %s of %s takes no --start: %s", model, workload, why)
	}
	return "", usagef("model %s of %s has no %s start: %s; valid: --start %s", model, workload, asked, why,
		strings.Join(sortedKeys(info.Start), ", --start "))
}

// Workload is one spec: its parameters with their defaults and its models.
type Workload struct {
	Name      string
	Params    []Param
	Models    []string
	ModelInfo map[string]Model
	// Prepare loads inputs outside the timed region and returns the repetition to time.
	Prepare func(args *Args) (Repetition, error)
	// Kernels, where the workload has kernel classes, is --list's "kernels": what the portable
	// and (where one exists) the tuned kernel are.
	Kernels func() map[string]string
	// Serve, for a server (echo-server), replaces the timed repetitions with its own
	// conversation on stdin and stdout; it returns at the end of stdin.
	Serve func(args *Args, stdin io.Reader, stdout io.Writer) error
}

// kernelClass reads --kernel portable|tuned (default portable) and records it as extra.kernel;
// a workload without a tuned kernel refuses tuned as a bad argument.
func kernelClass(args *Args, hasTuned bool) (tuned bool, err error) {
	switch args.String("kernel") {
	case "", "portable":
		args.Extra["kernel"] = "portable"
		return false, nil
	case "tuned":
		if !hasTuned {
			return false, usagef("%s has no tuned kernel in Go; valid: --kernel portable", args.Workload)
		}
		args.Extra["kernel"] = "tuned"
		return true, nil
	}
	return false, usagef("--kernel must be portable or tuned, got %q", args.String("kernel"))
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
	// Start is the start mode the model runs ("cold", "warm"), "" where it takes none; StartNs
	// is the time a warm model spent making its pool before the ready line.
	Start   string
	StartNs int64
	values  map[string]string
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

// parseArgs reads `<workload> --model M [--param V ...] [--workers N] [--start cold|warm]`.
func parseArgs(argv []string, workloads map[string]*Workload) (*Args, *Workload, error) {
	if len(argv) == 0 {
		return nil, nil, usagef("usage: run <workload> --model M [--param V ...] [--workers N] [--start cold|warm], or run --list")
	}
	workload, ok := workloads[argv[0]]
	if !ok {
		return nil, nil, usagef("unknown workload %q; valid: %s", argv[0], strings.Join(workloadNames(workloads), ", "))
	}
	args := &Args{Workload: workload.Name, Workers: runtime.NumCPU(),
		values: map[string]string{}, Extra: map[string]any{}}
	for _, p := range workload.Params {
		args.values[p.Name] = p.Default
	}
	// No --warmup or --repeat (protocol 4): the launcher alone decides how many repetitions run.
	known := map[string]bool{"model": true, "workers": true, "start": true}
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
		case "start":
			args.Start = value
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
	var err error
	if args.Start, err = startMode(workload.Name, args.Model, info, args.Start); err != nil {
		return nil, nil, err
	}
	if args.Start != "" {
		args.Extra["start"] = args.Start
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

// runCase loads the inputs (and makes a warm model's pool), prints the ready line, then runs
// one repetition per variant line on stdin (protocol 3), printing its line, until stdin ends
// (protocol 4): the process never knows how many repetitions there will be, nor which are timed.
func runCase(args *Args, workload *Workload, stdin io.Reader, stdout io.Writer) error {
	if args.Start == "warm" {
		// The pool's workers are locked to their threads (startPool); the caller's share of a
		// repetition (handing out the work, the checksum, the ceiling's bookkeeping) stays on
		// one thread made before the ready line too, rather than on one Go starts meanwhile.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
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
	// os.Stdout is unbuffered in Go: every Encode is one write, so each line leaves at once.
	encoder := json.NewEncoder(stdout)
	if err := encoder.Encode(readyLine(args)); err != nil {
		return err
	}
	variants := bufio.NewReader(stdin)
	for i := 0; ; i++ {
		variant, more, err := readVariant(variants, i)
		if !more || err != nil {
			return err // end of file: the case is over; a warm pool ends with the process
		}
		timer := &Timer{variant: variant, hasVariant: true}
		result, err := repetition(timer)
		if err != nil {
			return err
		}
		if err := encoder.Encode(repetitionLine(args, i, timer, result)); err != nil {
			return err
		}
	}
}

// readyLine is protocol 3's first line: the start mode that runs ("none" for a model without
// one) and, for warm, the time its pool took to start.
func readyLine(args *Args) any {
	if args.Start != "warm" {
		return map[string]any{"ready": cmp.Or(args.Start, "none")}
	}
	return map[string]any{"ready": "warm", "start_ns": args.StartNs,
		"extra": map[string]any{"workers": args.Workers, "gomaxprocs": runtime.GOMAXPROCS(0)}}
}

// readVariant reads repetition i's variant, one decimal integer on a line of its own; more is
// false at end of file, where the launcher wants no further repetition. Waiting for it is
// outside every clock: the repetition's timer starts after.
func readVariant(stdin *bufio.Reader, i int) (variant uint64, more bool, err error) {
	line, err := stdin.ReadString('\n')
	if errors.Is(err, io.EOF) && line == "" {
		return 0, false, nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, false, fmt.Errorf("reading repetition %d's variant: %w", i, err)
	}
	variant, err = strconv.ParseUint(strings.TrimSpace(line), 10, 64)
	if err != nil {
		return 0, false, usagef("repetition %d's variant must be a non-negative decimal integer on its own line, got %q",
			i, strings.TrimSpace(line))
	}
	return variant, true, nil
}

// repetitionLine is repetition i's JSON line, {"rep":i,...}: extra holds the case's flags, the
// work's own fields, the CPU time inside the clock and the phases outside it.
func repetitionLine(args *Args, i int, timer *Timer, result Result) any {
	extra := map[string]any{}
	for k, v := range args.Extra {
		extra[k] = v
	}
	for k, v := range result.Extra {
		extra[k] = v
	}
	extra["cpu_user_ns"], extra["cpu_sys_ns"] = timer.cpuUser.Nanoseconds(), timer.cpuSys.Nanoseconds()
	extra["checksum_ns"] = int64(0) // overwritten below where the workload computes one
	for k, v := range timer.phases {
		extra[k] = v
	}
	type line struct {
		Rep      int            `json:"rep"`
		Ns       int64          `json:"ns"`
		Items    int64          `json:"items"`
		Checksum string         `json:"checksum"`
		Extra    map[string]any `json:"extra,omitempty"`
	}
	return line{Rep: i, Ns: timer.elapsed.Nanoseconds(), Items: result.Items, Checksum: result.Checksum, Extra: extra}
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
