package main

import (
	"slices"
	"testing"
	"time"
)

func TestFizzbuzzRules(t *testing.T) {
	for i, want := range map[int]string{0: "FizzBuzz", 15: "FizzBuzz", 10: "Buzz", 9: "Fizz", 7: "7", 11: "11"} {
		if got := string(appendFizzbuzz(nil, i)); got != want {
			t.Errorf("fizzbuzz(%d) = %q, want %q", i, got, want)
		}
	}
}

func TestTasksAndStepsCountFromZero(t *testing.T) {
	line, h := stepLineHash(nil, 0, 0)
	if string(line) != "0:0:FizzBuzz" || h != fnv1a64([]byte("0:0:FizzBuzz")) {
		t.Fatalf("task 0 step 0 is %q", line)
	}
}

func TestTasks3Steps10(t *testing.T) {
	for _, model := range coroutineSwarmWorkload.Models {
		args := testArgs(t, "coroutine-swarm", model, 2, "--tasks", "3", "--steps", "10", "--sleep-ms", "0")
		if got := runOnce(t, args).Checksum; got != "1161d008ce58dc37" {
			t.Errorf("%s: %s", model, got)
		}
	}
}

// Protocol 2's vectors: tasks 3, steps 10 under salts 0, 1000 and 2^32-1 (task t forms its
// lines as t + salt), for both models; the goroutines interleave (switches > tasks - 1) and
// seq counts exactly tasks - 1.
func TestSaltVariants(t *testing.T) {
	want := []string{"1161d008ce58dc37", "bb33744708f665dd", "2540eadf7cfb00ad"}
	for _, model := range coroutineSwarmWorkload.Models {
		args := testArgs(t, "coroutine-swarm", model, 2, "--tasks", "3", "--steps", "10", "--sleep-ms", "0")
		for i, result := range runVariants(t, args, 0, 1000, 4294967295) {
			if result.Checksum != want[i] {
				t.Errorf("%s salt #%d: %s, want %s", model, i, result.Checksum, want[i])
			}
		}
	}
	extra := runOnce(t, testArgs(t, "coroutine-swarm", "seq", 0, "--tasks", "50", "--steps", "10", "--sleep-ms", "0")).Extra
	if extra["switches"] != int64(49) {
		t.Errorf("seq: switches %v, want 49", extra["switches"])
	}
	extra = runOnce(t, testArgs(t, "coroutine-swarm", "goroutines", 2, "--tasks", "50", "--steps", "10", "--sleep-ms", "0")).Extra
	if switches, _ := extra["switches"].(int64); switches <= 49 || len(extra["busy"].([][3]int64)) == 0 {
		t.Errorf("goroutines: switches %v, busy %v", extra["switches"], extra["busy"])
	}
}

func TestEverySwarmModelAgreesForArbitraryParams(t *testing.T) {
	for _, c := range []struct{ tasks, steps, workers, sleepMs int }{{1, 1, 1, 0}, {301, 7, 3, 0}, {2000, 31, 2, 0}, {500, 3, 2, 1}} {
		sum, _ := swarmSeq(c.tasks, c.steps, 0)
		want := digestHex(sum)
		args := testArgs(t, "coroutine-swarm", "goroutines", c.workers, "--tasks", itoa(c.tasks),
			"--steps", itoa(c.steps), "--sleep-ms", itoa(c.sleepMs))
		if got := runOnce(t, args).Checksum; got != want {
			t.Errorf("%+v: goroutines %s, seq %s", c, got, want)
		}
	}
}

func TestSleepingTasksSleepConcurrently(t *testing.T) {
	args := testArgs(t, "coroutine-swarm", "goroutines", 2, "--tasks", "1000", "--steps", "3", "--sleep-ms", "50")
	started := time.Now()
	runOnce(t, args)
	// 1000 tasks x 3 sleeps of 50 ms one after another would take 150 s.
	if elapsed := time.Since(started); elapsed > 5*time.Second {
		t.Fatalf("took %v", elapsed)
	}
}

func TestBareYieldCeilingOnlyWithoutSleeps(t *testing.T) {
	extra := runOnce(t, testArgs(t, "coroutine-swarm", "goroutines", 2, "--tasks", "50", "--steps", "4", "--sleep-ms", "0")).Extra
	if ns, _ := extra["ceiling_ns"].(int64); extra["ceiling"] != "yield" || ns <= 0 {
		t.Errorf("sleep 0: extra %v", extra)
	}
	extra = runOnce(t, testArgs(t, "coroutine-swarm", "goroutines", 2, "--tasks", "50", "--steps", "2", "--sleep-ms", "1")).Extra
	if _, has := extra["ceiling"]; has {
		t.Errorf("sleep 1 ms: a yield ceiling %v", extra)
	}
}

// Protocol 4's proof of interleaving: every step draws a ticket, the salt picks the probe tasks
// (40 / 16 = every 2nd, from (-3) mod 2 = 1), and some probe drew a ticket inside another's life.
func TestGoroutinesDrawInterleavedTickets(t *testing.T) {
	args := testArgs(t, "coroutine-swarm", "goroutines", 2, "--tasks", "40", "--steps", "5", "--sleep-ms", "0")
	extra := runVariants(t, args, 3)[0].Extra
	if extra["tickets"] != int64(200) {
		t.Fatalf("tickets %v, want 200", extra["tickets"])
	}
	probes := extra["ticket_probes"].([][3]int64)
	slices.SortFunc(probes, func(a, b [3]int64) int { return int(a[1] - b[1]) })
	overlap := false
	for i, probe := range probes {
		if probe[0]%2 != 1 {
			t.Errorf("task %d is not one of the salt's probes", probe[0])
		}
		overlap = overlap || (i > 0 && probe[1] < probes[i-1][2])
	}
	if len(probes) != 20 || !overlap {
		t.Errorf("probes %v: want 20 whose lives overlap", probes)
	}
}
