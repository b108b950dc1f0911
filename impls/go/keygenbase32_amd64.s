#include "textflag.h"

// func base32VBMI(dst, src *byte, blocks int, tables *base32VBMITables)
// Encodes blocks x 40 bytes into blocks x 64 letters (keygenbase32.go says how). Each load is
// masked to 40 bytes, so the last block reads nothing past the key.
TEXT ·base32VBMI(SB), NOSPLIT, $0-32
	MOVQ    dst+0(FP), DI
	MOVQ    src+8(FP), SI
	MOVQ    blocks+16(FP), CX
	MOVQ    tables+24(FP), AX
	VMOVDQU64 0(AX), Z1
	VMOVDQU64 64(AX), Z2
	VMOVDQU64 128(AX), Z3
	MOVQ    $0xffffffffff, DX
	KMOVQ   DX, K1
	TESTQ   CX, CX
	JZ      done

loop:
	VMOVDQU8.Z (SI), K1, Z0
	VPERMB  Z0, Z1, Z4
	VPMULTISHIFTQB Z4, Z2, Z5
	VPERMB  Z3, Z5, Z6
	VMOVDQU64 Z6, (DI)
	ADDQ    $40, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     loop

done:
	VZEROUPPER
	RET
