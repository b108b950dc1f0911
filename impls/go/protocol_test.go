package main

import (
	"errors"
	"testing"
	"time"
)

// testArgs parses a call the way the harness makes it; workers 0 leaves --workers out.
func testArgs(t *testing.T, workload, model string, workers int, params ...string) *Args {
	t.Helper()
	argv := append([]string{workload, "--model", model}, params...)
	if workers > 0 && allWorkloads()[workload].ModelInfo[model].Workers {
		argv = append(argv, "--workers", itoa(workers))
	}
	args, _, err := parseArgs(append(argv, "--warmup", "0", "--repeat", "1"), allWorkloads())
	if err != nil {
		t.Fatalf("%v: %v", argv, err)
	}
	return args
}

// runOnce prepares and runs one repetition.
func runOnce(t *testing.T, args *Args) Result {
	t.Helper()
	repetition, err := allWorkloads()[args.Workload].Prepare(args)
	if err != nil {
		t.Fatal(err)
	}
	result, err := repetition(&Timer{})
	if err != nil {
		t.Fatal(err)
	}
	return result
}

func TestUnknownModelIsABadArgument(t *testing.T) {
	_, _, err := parseArgs([]string{"keygen", "--model", "foo"}, allWorkloads())
	var usage *UsageError
	if !errors.As(err, &usage) || exitFor(err) != 2 {
		t.Fatalf("got %v", err)
	}
}

func TestUnknownParamIsABadArgument(t *testing.T) {
	_, _, err := parseArgs([]string{"spawn-chain", "--model", "goroutines", "--count", "3"}, allWorkloads())
	if exitFor(err) != 2 {
		t.Fatalf("got %v", err)
	}
}

func TestWorkersOnlyForModelsThatTakeThem(t *testing.T) {
	_, _, err := parseArgs([]string{"keygen", "--model", "seq", "--workers", "2"}, allWorkloads())
	if exitFor(err) != 2 {
		t.Fatalf("got %v", err)
	}
}

func TestLimitExitsWithThree(t *testing.T) {
	if got := exitFor(&LimitError{Detail: "too many"}); got != 3 {
		t.Fatalf("exit %d", got)
	}
}

func TestNoopDoesNothingAndSaysNoop(t *testing.T) {
	args, _, err := parseArgs([]string{"noop", "--warmup", "0", "--repeat", "1"}, allWorkloads())
	if err != nil {
		t.Fatal(err)
	}
	if result := runOnce(t, args); result.Checksum != "noop" || result.Items != 0 {
		t.Fatalf("got %+v", result)
	}
}

func TestVariantsNeedOnePerRepetition(t *testing.T) {
	argv := []string{"spawn-chain", "--model", "goroutines", "--n", "3", "--warmup", "1", "--repeat", "2"}
	if _, _, err := parseArgs(append(argv, "--variants", "1,2"), allWorkloads()); exitFor(err) != 2 {
		t.Fatalf("two variants for three repetitions: %v", err)
	}
	args, _, err := parseArgs(append(argv, "--variants", "1,2,3"), allWorkloads())
	if err != nil || len(args.Variants) != 3 || args.Variants[2] != 3 {
		t.Fatalf("got %v, %v", args, err)
	}
}

func TestTheTimerReadsTheProcessCPUAndPhases(t *testing.T) {
	timer := &Timer{}
	timer.Start()
	for time.Since(timer.started) < 30*time.Millisecond { // spin: CPU time on the clock
	}
	timer.Stop()
	timer.Phase("checksum", func() {})
	if timer.cpuUser+timer.cpuSys <= 0 || timer.phases["checksum_ns"] < 0 || timer.Variant(7) != 7 {
		t.Fatalf("cpu %v + %v, phases %v", timer.cpuUser, timer.cpuSys, timer.phases)
	}
}

func TestKernelTunedIsABadArgumentWhereThereIsNone(t *testing.T) {
	args := &Args{Workload: "batch-job", values: map[string]string{"kernel": "tuned"}, Extra: map[string]any{}}
	if _, err := kernelClass(args, false); exitFor(err) != 2 {
		t.Fatalf("got %v", err)
	}
}
