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

// The 32 groups' worth of 5-bit fields of Y0 (each 5-byte group as a 40-bit integer in its own
// 64-bit lane, from the spread) into 32 letters in the order of the text, with the constants of
// base32AVX2Tables in Y8–Y15 and Y6–Y7 (keygenbase32.go says how); `scratch` is clobbered.
#define BASE32_LETTERS(x, scratch) \
	VPSLLQ   $12, x, scratch; \
	VPBLENDD $0xaa, scratch, x, x; \
	VPAND    Y10, x, x; \
	VPSLLD   $6, x, scratch; \
	VPBLENDW $0xaa, scratch, x, x; \
	VPAND    Y11, x, x; \
	VPSLLW   $3, x, scratch; \
	VPAND    Y12, x, x; \
	VPAND    Y13, scratch, scratch; \
	VPOR     scratch, x, x; \
	VPSHUFB  Y14, x, x; \
	VPCMPGTB Y15, x, scratch; \
	VPAND    Y6, scratch, scratch; \
	VPADDB   Y7, x, x; \
	VPSUBB   scratch, x, x

// func base32AVX2(dst, src *byte, blocks int, tables *base32AVX2Tables)
// Encodes blocks x 40 bytes into blocks x 64 letters, 20 bytes a YMM: its lanes load 16 bytes
// at offsets 0, 10 (first half) and 20, 24 (second), so no load reaches past the block's 40.
TEXT ·base32AVX2(SB), NOSPLIT, $0-32
	MOVQ    dst+0(FP), DI
	MOVQ    src+8(FP), SI
	MOVQ    blocks+16(FP), CX
	MOVQ    tables+24(FP), AX
	VMOVDQU 0(AX), Y8
	VMOVDQU 32(AX), Y9
	VMOVDQU 64(AX), Y10
	VMOVDQU 96(AX), Y11
	VMOVDQU 128(AX), Y12
	VMOVDQU 160(AX), Y13
	VMOVDQU 192(AX), Y14
	VMOVDQU 224(AX), Y15
	VMOVDQU 256(AX), Y6
	VMOVDQU 288(AX), Y7
	TESTQ   CX, CX
	JZ      avx2done

avx2loop:
	VMOVDQU (SI), X0
	VINSERTI128 $1, 10(SI), Y0, Y0
	VMOVDQU 20(SI), X1
	VINSERTI128 $1, 24(SI), Y1, Y1
	VPSHUFB Y8, Y0, Y0
	VPSHUFB Y9, Y1, Y1
	BASE32_LETTERS(Y0, Y2)
	BASE32_LETTERS(Y1, Y3)
	VMOVDQU Y0, (DI)
	VMOVDQU Y1, 32(DI)
	ADDQ    $40, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     avx2loop

avx2done:
	VZEROUPPER
	RET
