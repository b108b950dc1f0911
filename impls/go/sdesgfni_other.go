//go:build !amd64

// The bitwise form off amd64: no GFNI kernel.
package main

func gfniCipher(key uint) encryptRange { panic("sdes-ecb: the GFNI kernel is amd64 only") }
