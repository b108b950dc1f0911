//go:build !amd64

// The bitwise form off amd64: no AVX2 kernel.
package main

func nibblesCipher(key uint) encryptRange { panic("sdes-ecb: the AVX2 kernel is amd64 only") }
