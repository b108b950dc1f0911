//go:build !amd64

// The tuned table form off amd64: the plain-Go word loop only.
package main

func lookupVBMIOver(*[256]byte) encryptRange { panic("sdes-ecb: the VBMI table kernel is amd64 only") }

func lookupAVX2Over(*[256]byte) encryptRange { panic("sdes-ecb: the AVX2 table kernel is amd64 only") }
