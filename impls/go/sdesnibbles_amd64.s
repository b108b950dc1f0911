#include "textflag.h"

// IP, f_K1, SW, f_K2, IP⁻¹ on the 32 blocks of Y0 (sdesnibbles.go says how), with the 12
// tables in Y4–Y15 and 0x0f in every byte of Y3; Y1 and Y2 are scratch.
#define ENCRYPT \
	VPSRLW  $4, Y0, Y1; \
	VPAND   Y3, Y1, Y1; \
	VPAND   Y3, Y0, Y0; \
	VPSHUFB Y1, Y5, Y1; \
	VPSHUFB Y0, Y4, Y0; \
	VPOR    Y1, Y0, Y0; \
	VPAND   Y3, Y0, Y1; \
	VPSHUFB Y1, Y6, Y2; \
	VPSHUFB Y1, Y7, Y1; \
	VPSHUFB Y2, Y8, Y2; \
	VPSHUFB Y1, Y9, Y1; \
	VPXOR   Y2, Y0, Y0; \
	VPXOR   Y1, Y0, Y0; \
	VPSRLW  $4, Y0, Y1; \
	VPAND   Y3, Y1, Y1; \
	VPAND   Y3, Y0, Y0; \
	VPSHUFB Y1, Y10, Y2; \
	VPSHUFB Y2, Y12, Y2; \
	VPSHUFB Y0, Y14, Y0; \
	VPXOR   Y2, Y0, Y0; \
	VPSHUFB Y1, Y11, Y2; \
	VPSHUFB Y2, Y13, Y2; \
	VPXOR   Y2, Y0, Y0; \
	VPSHUFB Y1, Y15, Y1; \
	VPOR    Y1, Y0, Y0

// func encryptNibbles(dst, src *byte, blocks int, tables *nibbleTables, streaming bool)
// Encrypts blocks x 32 bytes. streaming: non-temporal stores (dst must be 32-byte aligned), as
// memmove does from 1 MiB up.
TEXT ·encryptNibbles(SB), NOSPLIT, $0-33
	MOVQ    dst+0(FP), DI
	MOVQ    src+8(FP), SI
	MOVQ    blocks+16(FP), CX
	MOVQ    tables+24(FP), AX
	MOVBLZX streaming+32(FP), BX
	VMOVDQU 0(AX), Y4
	VMOVDQU 32(AX), Y5
	VMOVDQU 64(AX), Y6
	VMOVDQU 96(AX), Y7
	VMOVDQU 128(AX), Y8
	VMOVDQU 160(AX), Y9
	VMOVDQU 192(AX), Y10
	VMOVDQU 224(AX), Y11
	VMOVDQU 256(AX), Y12
	VMOVDQU 288(AX), Y13
	VMOVDQU 320(AX), Y14
	VMOVDQU 352(AX), Y15
	MOVL    $0x0f0f0f0f, DX
	MOVQ    DX, X3
	VPBROADCASTD X3, Y3
	TESTQ   CX, CX
	JZ      done
	TESTQ   BX, BX
	JNZ     streamloop

storeloop:
	VMOVDQU (SI), Y0
	ENCRYPT
	VMOVDQU Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     storeloop
	JMP     done

streamloop:
	VMOVDQU (SI), Y0
	ENCRYPT
	VMOVNTDQ Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     streamloop
	SFENCE

done:
	VZEROUPPER
	RET
