//go:build !amd64

// The tuned table form off amd64: the plain-Go word loop only.
package main

func tableKernels() []string { return []string{"go"} }

func tableLookupWith(_ string, table *[256]byte) func(dst, src []byte) {
	return func(dst, src []byte) { lookupWords(dst, src, table) }
}
