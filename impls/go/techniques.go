// Which technique a tuned kernel runs: the fastest this CPU runs, or the one a param or the environment forces.
package main

import (
	"os"
	"strings"

	"golang.org/x/sys/cpu"
)

// The environment variables that force a technique (the project's convention: Java and Node
// read PARBENCH_SDES_TECHNIQUE too), for the tests and for comparing techniques by hand.
// Each workload's own param (--bitwise-kernel, --table-kernel, --base32-kernel) does the same.
const (
	sdesTechniqueVariable   = "PARBENCH_SDES_TECHNIQUE"
	keygenTechniqueVariable = "PARBENCH_KEYGEN_TECHNIQUE"
)

// technique is one way to run a tuned kernel, K its entry point.
type technique[K any] struct {
	label string
	// needs says what it needs, for the refusal; cpuFlags are those instructions as
	// /proc/cpuinfo names them (the tests fail under CI=true where they are there but runs says no).
	needs    string
	cpuFlags []string
	runs     func() bool
	detail   string // extra.kernel_detail after the label
	kernel   K
}

// describe is extra.kernel_detail: the label first, then how it works.
func (t technique[K]) describe() string { return t.label + ": " + t.detail }

// chooseTechnique picks among `techniques` (fastest first): the one the param or the variable
// names, else the first this CPU runs. One named that cannot run here, or that is not one of
// them, is a bad argument (exit 2), never quietly replaced by the next.
func chooseTechnique[K any](args *Args, param, variable, of string, techniques []technique[K]) (technique[K], error) {
	fromParam, fromVariable := args.String(param), os.Getenv(variable)
	requested, source := fromParam, "--"+param+" "+fromParam
	switch {
	case fromParam == "" && fromVariable == "":
		return firstThatRuns(techniques), nil
	case fromParam == "":
		requested, source = fromVariable, variable+"="+fromVariable
	case fromVariable != "" && fromVariable != fromParam:
		return technique[K]{}, usagef("%s and %s=%s name different techniques", source, variable, fromVariable)
	}
	for _, t := range techniques {
		if t.label == requested && !t.runs() {
			return t, usagef("%s cannot run here: it needs %s, which this CPU lacks", source, t.needs)
		}
		if t.label == requested {
			return t, nil
		}
	}
	return technique[K]{}, usagef("%s is not a technique of %s; it has %s", source, of, labelsOf(techniques))
}

// labelsOf lists the techniques' labels, fastest first.
func labelsOf[K any](techniques []technique[K]) string {
	labels := make([]string, len(techniques))
	for i, t := range techniques {
		labels[i] = t.label
	}
	return strings.Join(labels, ", ")
}

// firstThatRuns is the technique chosen when none is forced (the last runs everywhere).
func firstThatRuns[K any](techniques []technique[K]) technique[K] {
	for _, t := range techniques {
		if t.runs() {
			return t
		}
	}
	return techniques[len(techniques)-1]
}

// What the CPU (and its OS, for the vector registers' state) offers, as golang.org/x/sys/cpu
// reads it; all false off x86, where only the plain-Go techniques run.
func hasGFNIAVX512() bool {
	return cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512GFNI
}
func hasAVX512VBMI() bool {
	return cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VBMI
}
func hasAVX2() bool    { return cpu.X86.HasAVX2 }
func everywhere() bool { return true }
