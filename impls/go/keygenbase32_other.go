//go:build !amd64

// keygen's Base32 off amd64: encoding/base32 only.
package main

func base32Kernels() []string { return []string{"go"} }

func encodeBase32VBMI(dst, src []byte) { panic("keygen: the VBMI Base32 is amd64 only") }
