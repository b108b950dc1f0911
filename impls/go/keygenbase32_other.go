//go:build !amd64

// keygen's Base32 off amd64: encoding/base32 only.
package main

func encodeBase32VBMI(dst, src []byte) { panic("keygen: the VBMI Base32 is amd64 only") }

func encodeBase32AVX2(dst, src []byte) { panic("keygen: the AVX2 Base32 is amd64 only") }
