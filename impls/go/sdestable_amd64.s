#include "textflag.h"

// func lookupVBMI(dst, src *byte, blocks int, table *[256]byte, streaming bool)
// Translates blocks x 64 bytes through the 256-byte table: VPERMI2B looks up 128 entries by
// the low 7 bits of each byte, once in each half of the table; bit 7 picks the half.
// streaming: non-temporal stores (dst must be 64-byte aligned), as memmove does from 1 MiB up.
TEXT ·lookupVBMI(SB), NOSPLIT, $0-33
	MOVQ    dst+0(FP), DI
	MOVQ    src+8(FP), SI
	MOVQ    blocks+16(FP), CX
	MOVQ    table+24(FP), AX
	MOVBLZX streaming+32(FP), BX
	VMOVDQU64 (AX), Z0
	VMOVDQU64 64(AX), Z1
	VMOVDQU64 128(AX), Z2
	VMOVDQU64 192(AX), Z3
	TESTQ   CX, CX
	JZ      done
	TESTQ   BX, BX
	JNZ     streamloop

storeloop:
	VMOVDQU64 (SI), Z4
	VPMOVB2M  Z4, K1
	VMOVDQA64 Z4, Z5
	VPERMI2B  Z1, Z0, Z4
	VPERMI2B  Z3, Z2, Z5
	VMOVDQU8  Z5, K1, Z4
	VMOVDQU64 Z4, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     storeloop
	JMP     done

streamloop:
	VMOVDQU64 (SI), Z4
	VPMOVB2M  Z4, K1
	VMOVDQA64 Z4, Z5
	VPERMI2B  Z1, Z0, Z4
	VPERMI2B  Z3, Z2, Z5
	VMOVDQU8  Z5, K1, Z4
	VMOVNTDQ  Z4, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     streamloop
	SFENCE

done:
	VZEROUPPER
	RET

// One step of lookupAVX2's two chains: both indices drop by 16 (saturating, so a byte that is
// out of a chain's range stays negative and VPSHUFB gives 0 for it), then each chain looks up
// its next difference table and folds it in.
#define AVX2_STEP(k) \
	VPSUBSB Y14, Y0, Y0; \
	VPSUBSB Y14, Y1, Y1; \
	VMOVDQU (k*32)(AX), Y2; \
	VPSHUFB Y0, Y2, Y5; \
	VPXOR   Y5, Y3, Y3; \
	VMOVDQU (256+k*32)(AX), Y2; \
	VPSHUFB Y1, Y2, Y5; \
	VPXOR   Y5, Y4, Y4

// func lookupAVX2(dst, src *byte, blocks int, diffs *[16][32]byte, streaming bool)
// Translates blocks x 32 bytes with VPSHUFB, which looks up 16 entries: the table is cut into
// 16 rows by the high nibble and each row stored as its difference from the row before
// (diffs, built by avx2Rows). Bytes below 128 run down one chain of 8 rows, bytes from 128
// (as x ^ 0x80) down the other; the XOR of the differences up to a byte's row is its row.
TEXT ·lookupAVX2(SB), NOSPLIT, $0-33
	MOVQ    dst+0(FP), DI
	MOVQ    src+8(FP), SI
	MOVQ    blocks+16(FP), CX
	MOVQ    diffs+24(FP), AX
	MOVBLZX streaming+32(FP), BX
	MOVQ    $0x1010101010101010, DX
	MOVQ    DX, X14
	VPBROADCASTQ X14, Y14
	MOVQ    $0x8080808080808080, DX
	MOVQ    DX, X15
	VPBROADCASTQ X15, Y15
	TESTQ   CX, CX
	JZ      avx2done

avx2loop:
	VMOVDQU (SI), Y0
	VPXOR   Y15, Y0, Y1
	VMOVDQU (AX), Y2
	VPSHUFB Y0, Y2, Y3
	VMOVDQU 256(AX), Y2
	VPSHUFB Y1, Y2, Y4
	AVX2_STEP(1)
	AVX2_STEP(2)
	AVX2_STEP(3)
	AVX2_STEP(4)
	AVX2_STEP(5)
	AVX2_STEP(6)
	AVX2_STEP(7)
	VPXOR   Y4, Y3, Y3
	TESTQ   BX, BX
	JNZ     avx2stream
	VMOVDQU Y3, (DI)
	JMP     avx2next

avx2stream:
	VMOVNTDQ Y3, (DI)

avx2next:
	ADDQ    $32, SI
	ADDQ    $32, DI
	DECQ    CX
	JNZ     avx2loop
	SFENCE

avx2done:
	VZEROUPPER
	RET
