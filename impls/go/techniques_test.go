package main

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// skipUnlessRuns skips a test of a technique this CPU cannot run, naming why; under CI=true a
// skip fails where /proc/cpuinfo lists every instruction it needs (the detection would then be
// what is broken, and the technique would go untested on a machine that runs it).
func skipUnlessRuns[K any](t *testing.T, technique technique[K]) {
	t.Helper()
	if technique.runs() {
		return
	}
	reason := technique.label + " cannot run here: it needs " + technique.needs
	if os.Getenv("CI") == "true" && len(technique.cpuFlags) > 0 && cpuinfoHas(t, technique.cpuFlags) {
		t.Fatalf("%s, but /proc/cpuinfo lists %v", reason, technique.cpuFlags)
	}
	t.Skip(reason)
}

// cpuinfoHas is whether Linux lists every one of flags for this CPU.
func cpuinfoHas(t *testing.T, flags []string) bool {
	cpuinfo, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return false
	}
	for line := range strings.Lines(string(cpuinfo)) {
		name, listed, found := strings.Cut(line, ":")
		if found && strings.TrimSpace(name) == "flags" {
			fields := strings.Fields(listed)
			return !slices.ContainsFunc(flags, func(flag string) bool { return !slices.Contains(fields, flag) })
		}
	}
	return false
}

// posed is the techniques as on a CPU that lacks those labelled in `lacking`.
func posed[K any](techniques []technique[K], lacking ...string) []technique[K] {
	posed := slices.Clone(techniques)
	for i := range posed {
		if slices.Contains(lacking, posed[i].label) {
			posed[i].runs = func() bool { return false }
		}
	}
	return posed
}

func chooseFor[K any](t *testing.T, param, value string, techniques []technique[K]) (technique[K], error) {
	args := testArgs(t, "sdes-ecb", "seq", 0, "--input", "x", "--"+param, value)
	return chooseTechnique(args, param, sdesTechniqueVariable, "the bitwise cipher", techniques)
}

func TestWithNothingForcedTheFirstTechniqueThatRunsIsChosen(t *testing.T) {
	t.Setenv(sdesTechniqueVariable, "")
	// AVX2 without GFNI or AVX-512 (AMD Zen 1-3, Intel client cores): the AVX2 kernel, not plain Go.
	chosen, err := chooseFor(t, "bitwise-kernel", "", posed(sdesBitwiseTechniques, "gfni-avx512"))
	if err != nil || chosen.label != "avx2" {
		t.Fatalf("without GFNI: %s, %v", chosen.label, err)
	}
	chosen, err = chooseFor(t, "bitwise-kernel", "", posed(sdesBitwiseTechniques, "gfni-avx512", "avx2"))
	if err != nil || chosen.label != "sliced" {
		t.Fatalf("without AVX2: %s, %v", chosen.label, err)
	}
	if got := firstThatRuns(posed(sdesTableTechniques, "avx512vbmi")).label; got != "avx2" {
		t.Fatalf("table without VBMI: %s", got)
	}
	if got := firstThatRuns(posed(keygenBase32Techniques, "avx512vbmi")).label; got != "avx2" {
		t.Fatalf("Base32 without VBMI: %s", got)
	}
}

func TestAForcedTechniqueThatCannotRunHereIsExit2NamingWhy(t *testing.T) {
	t.Setenv(sdesTechniqueVariable, "gfni-avx512")
	_, err := chooseFor(t, "bitwise-kernel", "", posed(sdesBitwiseTechniques, "gfni-avx512"))
	if exitFor(err) != 2 || !strings.Contains(err.Error(),
		"PARBENCH_SDES_TECHNIQUE=gfni-avx512 cannot run here: it needs GFNI, AVX-512 F and AVX-512 BW") {
		t.Fatalf("got %v", err)
	}
	t.Setenv(sdesTechniqueVariable, "")
	_, err = chooseFor(t, "bitwise-kernel", "avx2", posed(sdesBitwiseTechniques, "avx2"))
	if exitFor(err) != 2 || !strings.Contains(err.Error(), "--bitwise-kernel avx2 cannot run here: it needs AVX2") {
		t.Fatalf("got %v", err)
	}
}

func TestANameThatIsNoTechniqueOfTheCipherIsExit2ListingThem(t *testing.T) {
	t.Setenv(sdesTechniqueVariable, "avx512vbmi") // the table cipher's, not the bitwise one's
	_, err := chooseFor(t, "bitwise-kernel", "", sdesBitwiseTechniques)
	if exitFor(err) != 2 || !strings.Contains(err.Error(), "not a technique of the bitwise cipher; it has gfni-avx512, avx2, sliced, masks") {
		t.Fatalf("got %v", err)
	}
}

func TestTheParamAndTheVariableMustNotDisagree(t *testing.T) {
	t.Setenv(sdesTechniqueVariable, "masks")
	if _, err := chooseFor(t, "bitwise-kernel", "sliced", sdesBitwiseTechniques); exitFor(err) != 2 {
		t.Fatalf("sliced against masks: got %v", err)
	}
	if chosen, err := chooseFor(t, "bitwise-kernel", "masks", sdesBitwiseTechniques); err != nil || chosen.label != "masks" {
		t.Fatalf("masks twice: %s, %v", chosen.label, err)
	}
}
