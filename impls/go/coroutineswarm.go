// coroutine-swarm: many goroutines that yield before each step, folding "t:step:fizzbuzz" lines into a digest.
package main

import (
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

var coroutineSwarmWorkload = &Workload{
	Name:   "coroutine-swarm",
	Params: []Param{{"tasks", "1000", false}, {"steps", "10", false}, {"sleep-ms", "0", false}},
	Models: []string{"seq", "goroutines"},
	ModelInfo: map[string]Model{
		"seq": {Family: "seq", Note: "the same lines in a plain loop, no yields"},
		"goroutines": {Family: "green", Workers: true,
			Note:             "one goroutine per task, all created behind a start gate (a closed channel) before any runs; runtime.Gosched() when sleep-ms is 0, else time.Sleep; --workers sets GOMAXPROCS",
			StartUnavailable: map[string]string{"cold": unitsAreGoroutines, "warm": unitsAreMadePerRepetition}},
	},
	Prepare: prepareCoroutineSwarm,
}

// appendFizzbuzz appends fizzbuzz(i) as the spec defines it.
func appendFizzbuzz(dst []byte, i int) []byte {
	switch {
	case i%15 == 0:
		return append(dst, "FizzBuzz"...)
	case i%5 == 0:
		return append(dst, "Buzz"...)
	case i%3 == 0:
		return append(dst, "Fizz"...)
	default:
		return strconv.AppendInt(dst, int64(i), 10)
	}
}

// stepLineHash is fnv1a64 of the line "task:step:fizzbuzz(step)"; line is a reusable buffer.
func stepLineHash(line []byte, task, step int) ([]byte, uint64) {
	line = strconv.AppendInt(line[:0], int64(task), 10)
	line = append(line, ':')
	line = strconv.AppendInt(line, int64(step), 10)
	line = append(line, ':')
	line = appendFizzbuzz(line, step)
	return line, fnv1a64(line)
}

func prepareCoroutineSwarm(args *Args) (Repetition, error) {
	tasks, err := args.Int("tasks")
	if err != nil {
		return nil, err
	}
	steps, err := args.Int("steps")
	if err != nil {
		return nil, err
	}
	sleepMs, err := args.Int("sleep-ms")
	if err != nil {
		return nil, err
	}
	if args.Model == "seq" {
		return func(timer *Timer) (Result, error) {
			salt := int(timer.Variant(0))
			timer.Start()
			sum, switches := swarmSeq(tasks, steps, salt)
			timer.Stop()
			var checksum string
			timer.Phase("checksum", func() { checksum = digestHex(sum) })
			return Result{Items: int64(tasks), Checksum: checksum,
				Extra: map[string]any{"switches": switches}}, nil
		}, nil
	}
	runtime.GOMAXPROCS(args.Workers)
	args.Extra["gomaxprocs"] = runtime.GOMAXPROCS(0)
	yield := runtime.Gosched
	if sleepMs > 0 {
		pause := time.Duration(sleepMs) * time.Millisecond
		yield = func() { time.Sleep(pause) }
	}
	return func(timer *Timer) (Result, error) {
		salt := int(timer.Variant(0))
		timer.Start()
		swarm := &swarmRun{tasks: tasks, steps: steps, salt: salt, yield: yield,
			busy: newBusyLog(timer.started, runtime.GOMAXPROCS(0))}
		sum, spawnNs := swarm.run(timer.started)
		timer.Stop()
		var checksum string
		timer.Phase("checksum", func() { checksum = digestHex(sum) })
		extra := map[string]any{"spawn_ns": spawnNs, "switches": swarm.switches.Load(),
			"busy": swarm.busy.intervals(), "tickets": swarm.tickets.Load(), "ticket_probes": swarm.probes}
		if sleepMs == 0 {
			extra["ceiling"], extra["ceiling_ns"] = "yield", bareYieldsNs(tasks*steps)
		}
		return Result{Items: int64(tasks), Checksum: checksum, Extra: extra}, nil
	}, nil
}

// bareYieldsNs is the ceiling: one goroutine calls runtime.Gosched as many times as the whole
// swarm yields, forming no lines; it times its own loop.
func bareYieldsNs(yields int) int64 {
	elapsed := make(chan int64)
	go func() {
		start := time.Now()
		for range yields {
			runtime.Gosched()
		}
		elapsed <- time.Since(start).Nanoseconds()
	}()
	return <-elapsed
}

// swarmSeq runs every task's lines in a plain loop; its switches are the tasks-1 hand-overs
// from one finished task to the next (counted by the same rule as the goroutines').
func swarmSeq(tasks, steps, salt int) (uint64, int64) {
	var sum uint64
	var line []byte
	last, switches := -1, int64(0)
	for task := range tasks {
		for step := range steps {
			if last != task {
				if last >= 0 {
					switches++
				}
				last = task
			}
			var h uint64
			line, h = stepLineHash(line, task+salt, step)
			sum += h
		}
	}
	return sum, switches
}

// swarmRun is one repetition of the goroutine swarm and its proof of interleaving: switches
// counts the steps whose task differs from the one that ran the step before (an atomic swap
// of the last task's id), and busy when each scheduler P (a worker: --workers sets
// GOMAXPROCS) first and last ran a step; tickets numbers every step in the order the
// scheduler ran it (a fetch-add), and probes holds the first and last tickets of the tasks the
// salt picks (protocol 4, proof of interleaving).
type swarmRun struct {
	tasks, steps, salt int
	yield              func()
	last               atomic.Int64
	switches           atomic.Int64
	tickets            atomic.Int64
	probesLock         sync.Mutex
	probes             [][3]int64
	busy               *busyLog
}

// finished records a probe task's first and last tickets: about 16 tasks, (task + salt) % stride == 0.
func (s *swarmRun) finished(task int, first, last int64) {
	if (task+s.salt)%max(1, s.tasks/16) != 0 {
		return
	}
	s.probesLock.Lock()
	s.probes = append(s.probes, [3]int64{int64(task), first, last})
	s.probesLock.Unlock()
}

// run creates every task behind a start gate, so spawn_ns is creation alone (as when an event
// loop creates tasks before it runs them), then opens the gate and waits for all.
func (s *swarmRun) run(started time.Time) (uint64, int64) {
	var total atomic.Uint64
	var wg sync.WaitGroup
	gate := make(chan struct{})
	s.last.Store(-1)
	s.probes = make([][3]int64, 0, 32)
	for task := range s.tasks {
		wg.Go(func() {
			<-gate
			var sum uint64
			first, ticket := int64(-1), int64(-1)
			line := make([]byte, 0, 32)
			for step := range s.steps {
				s.yield()
				if prev := s.last.Swap(int64(task)); prev != int64(task) && prev >= 0 {
					s.switches.Add(1)
				}
				ticket = s.tickets.Add(1) - 1
				if step == 0 {
					first = ticket
				}
				s.busy.markOnP()
				var h uint64
				line, h = stepLineHash(line, task+s.salt, step)
				sum += h
			}
			if s.steps > 0 {
				s.finished(task, first, ticket)
			}
			total.Add(sum)
		})
	}
	spawnNs := time.Since(started).Nanoseconds()
	close(gate)
	wg.Wait()
	return total.Load(), spawnNs
}
