package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
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
	args, _, err := parseArgs(argv, allWorkloads())
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
	args, _, err := parseArgs([]string{"noop"}, allWorkloads())
	if err != nil {
		t.Fatal(err)
	}
	if result := runOnce(t, args); result.Checksum != "noop" || result.Items != 0 {
		t.Fatalf("got %+v", result)
	}
}

func TestVariantsArgumentIsGone(t *testing.T) {
	argv := []string{"spawn-chain", "--model", "goroutines", "--n", "3", "--variants", "1,2"}
	if _, _, err := parseArgs(argv, allWorkloads()); exitFor(err) != 2 {
		t.Fatalf("--variants: %v", err)
	}
}

// Protocol 4: the launcher alone decides how many repetitions run and which are warm-ups.
func TestWarmupAndRepeatAreGone(t *testing.T) {
	for _, flag := range []string{"--warmup", "--repeat"} {
		argv := []string{"spawn-chain", "--model", "goroutines", "--n", "3", flag, "1"}
		if _, _, err := parseArgs(argv, allWorkloads()); exitFor(err) != 2 {
			t.Fatalf("%s: %v", flag, err)
		}
	}
}

// runLines runs a whole case as the launcher does, with stdin given at once, and returns its
// stdout lines as JSON objects and the error it ended with.
func runLines(t *testing.T, stdin string, argv ...string) ([]map[string]any, error) {
	t.Helper()
	args, workload, err := parseArgs(argv, allWorkloads())
	if err != nil {
		t.Fatal(err)
	}
	var stdout bytes.Buffer
	err = runCase(args, workload, strings.NewReader(stdin), &stdout)
	lines := []map[string]any{}
	for _, text := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var line map[string]any
		if json.Unmarshal([]byte(text), &line) != nil {
			t.Fatalf("not a JSON line: %q", text)
		}
		lines = append(lines, line)
	}
	return lines, err
}

// Protocol 3: the ready line first, then one line per variant read from stdin, each a "rep"
// (protocol 4); coroutine-swarm's test vectors under salts 0, 1000 and 4294967295.
func TestTheReadyLineComesFirstThenALinePerVariant(t *testing.T) {
	lines, err := runLines(t, "0\n1000\n4294967295\n", "coroutine-swarm", "--model", "seq", "--tasks", "3",
		"--steps", "10", "--sleep-ms", "0")
	if err != nil || len(lines) != 4 {
		t.Fatalf("%d lines, %v", len(lines), err)
	}
	if lines[0]["ready"] != "none" || len(lines[0]) != 1 {
		t.Errorf("ready line %v", lines[0])
	}
	want := []string{"1161d008ce58dc37", "bb33744708f665dd", "2540eadf7cfb00ad"}
	for i, line := range lines[1:] {
		if line["checksum"] != want[i] || line["rep"] != float64(i) || line["warmup"] != nil {
			t.Errorf("line %d: %v, want rep %d and %s", i+1, line, i, want[i])
		}
	}
}

// Protocol 4: end of file is the end of the case, after k variants or before the first.
func TestEndOfStdinEndsTheCaseCleanlyAfterItsVariants(t *testing.T) {
	for _, stdin := range []string{"", "5\n", "5\n6\n7\n"} {
		k := strings.Count(stdin, "\n")
		lines, err := runLines(t, stdin, "spawn-chain", "--model", "goroutines", "--n", "10")
		if err != nil || len(lines) != k+1 || lines[0]["ready"] != "none" {
			t.Fatalf("%q: %d lines, %v", stdin, len(lines), err)
		}
		for j, line := range lines[1:] {
			if line["rep"] != float64(j) || line["checksum"] != itoa(15+j) {
				t.Errorf("%q: line %d is %v", stdin, j+1, line)
			}
		}
	}
}

func TestAVariantThatIsNoNumberIsExitTwo(t *testing.T) {
	_, err := runLines(t, "five\n", "noop")
	if exitFor(err) != 2 {
		t.Fatalf("got %v", err)
	}
}

// The conversation is one line at a time: the process prints the ready line before it reads a
// variant, and each repetition's line before it reads the next one.
func TestEachVariantIsReadOnlyWhenItsRepetitionStarts(t *testing.T) {
	args, workload, err := parseArgs([]string{"spawn-chain", "--model", "goroutines", "--n", "7"}, allWorkloads())
	if err != nil {
		t.Fatal(err)
	}
	variantsIn, variantsOut := io.Pipe()
	linesIn, linesOut := io.Pipe()
	ended := make(chan error, 1)
	go func() { ended <- runCase(args, workload, variantsIn, linesOut); linesOut.Close() }()
	lines := bufio.NewScanner(linesIn)
	nextLine := func() string {
		got := make(chan string)
		go func() { lines.Scan(); got <- lines.Text() }()
		select {
		case line := <-got:
			return line
		case <-time.After(10 * time.Second):
			t.Fatal("no line from the process: it waits for a variant it should not need yet")
			return ""
		}
	}
	if line := nextLine(); line != `{"ready":"none"}` {
		t.Fatalf("first line %s", line)
	}
	for _, variant := range []int{100, 200, 300} {
		fmt.Fprintf(variantsOut, "%d\n", variant)
		if line := nextLine(); !strings.Contains(line, fmt.Sprintf(`"checksum":"%d"`, variant+7)) {
			t.Fatalf("after variant %d: %s", variant, line)
		}
	}
	variantsOut.Close()
	if err := <-ended; err != nil {
		t.Fatal(err)
	}
}

// A warm model makes its pool before the ready line, which carries start_ns, and every line
// echoes the start mode.
func TestAWarmModelSaysSoInTheReadyLineAndEveryLine(t *testing.T) {
	input := sdesFile(t, []byte("The quick brown fox jumps over the lazy dog\n"))
	lines, err := runLines(t, "642\n642\n", "sdes-ecb", "--model", "goroutines", "--workers", "2", "--input", input,
		"--key", "5", "--cipher", "bitwise")
	if err != nil || len(lines) != 3 {
		t.Fatalf("%d lines, %v", len(lines), err)
	}
	if start, ok := lines[0]["start_ns"].(float64); lines[0]["ready"] != "warm" || !ok || start <= 0 {
		t.Errorf("ready line %v", lines[0])
	}
	for _, line := range lines[1:] {
		if line["extra"].(map[string]any)["start"] != "warm" {
			t.Errorf("line %v does not echo the start", line)
		}
	}
}

func TestStartModesAreTheModelsOwn(t *testing.T) {
	for _, c := range []struct {
		argv []string
		want string // the start mode, or "exit 2"
	}{
		{[]string{"sdes-ecb", "--model", "goroutines", "--input", "x"}, "warm"},
		{[]string{"sdes-ecb", "--model", "goroutines", "--input", "x", "--start", "warm"}, "warm"},
		{[]string{"sdes-ecb", "--model", "goroutines", "--input", "x", "--start", "cold"}, "exit 2"},
		{[]string{"sdes-ecb", "--model", "goroutines", "--input", "x", "--start", "lukewarm"}, "exit 2"},
		{[]string{"sdes-ecb", "--model", "seq", "--input", "x", "--start", "warm"}, "exit 2"},
		{[]string{"sdes-ecb", "--model", "seq", "--input", "x"}, ""},
		{[]string{"spawn-chain", "--model", "goroutines", "--start", "warm"}, "exit 2"},
		{[]string{"coroutine-swarm", "--model", "goroutines", "--start", "cold"}, "exit 2"},
		{[]string{"batch-job", "--model", "goroutine-per-doc", "--docs-dir", "d", "--db", "sqlite:x", "--start", "cold"}, "exit 2"},
	} {
		args, _, err := parseArgs(c.argv, allWorkloads())
		switch {
		case c.want == "exit 2" && exitFor(err) != 2:
			t.Errorf("%v: %v, want exit 2", c.argv, err)
		case c.want != "exit 2" && (err != nil || args.Start != c.want):
			t.Errorf("%v: %v, %v, want start %q", c.argv, args, err, c.want)
		}
	}
}

// Every parallel model says, for each start mode, what it makes or why it cannot.
func TestEveryModelWithWorkersAccountsForBothStartModes(t *testing.T) {
	for _, workload := range allWorkloads() {
		for name, model := range workload.ModelInfo {
			for _, mode := range []string{"cold", "warm"} {
				_, offered := model.Start[mode]
				_, unavailable := model.StartUnavailable[mode]
				if model.Workers && offered == unavailable {
					t.Errorf("%s %s: %s start offered %v, unavailable %v", workload.Name, name, mode, offered, unavailable)
				}
			}
		}
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
