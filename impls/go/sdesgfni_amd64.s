#include "textflag.h"

// f_K on the 64 blocks of Z0 with the subkey broadcast in `subkey`:
// L ^= P4(S0(l4) ‖ S1(r4)) with (l4 ‖ r4) = E/P(R) ^ subkey; R kept.
#define ROUND(subkey) \
	VGF2P8AFFINEQB $0, Z25, Z0, Z1; \
	VPXORQ  subkey, Z1, Z1; \
	VPSRLW  $4, Z1, Z2; \
	VPANDQ  Z29, Z2, Z2; \
	VPANDQ  Z29, Z1, Z1; \
	VPSHUFB Z2, Z22, Z2; \
	VPSHUFB Z1, Z23, Z1; \
	VPORQ   Z2, Z1, Z1; \
	VGF2P8AFFINEQB $0, Z26, Z1, Z1; \
	VPXORQ  Z1, Z0, Z0

// IP, f_K1, SW, f_K2, IP⁻¹ on the 64 blocks of Z0.
#define ENCRYPT \
	VGF2P8AFFINEQB $0, Z24, Z0, Z0; \
	ROUND(Z20); \
	VGF2P8AFFINEQB $0, Z27, Z0, Z0; \
	ROUND(Z21); \
	VGF2P8AFFINEQB $0, Z28, Z0, Z0

// func encryptGFNI(dst, src *byte, blocks int, k1, k2 byte, tables *gfniTables, streaming bool)
// Encrypts blocks x 64 bytes (sdesgfni.go says how). streaming: non-temporal stores (dst must be
// 64-byte aligned), as memmove does from 1 MiB up.
TEXT ·encryptGFNI(SB), NOSPLIT, $0-41
	MOVQ    dst+0(FP), DI
	MOVQ    src+8(FP), SI
	MOVQ    blocks+16(FP), CX
	MOVBLZX k1+24(FP), AX
	MOVBLZX k2+25(FP), BX
	MOVQ    tables+32(FP), DX
	MOVBLZX streaming+40(FP), R8
	VPBROADCASTB AX, Z20
	VPBROADCASTB BX, Z21
	VMOVDQU64 0(DX), Z22
	VMOVDQU64 64(DX), Z23
	VPBROADCASTQ 128(DX), Z24
	VPBROADCASTQ 136(DX), Z25
	VPBROADCASTQ 144(DX), Z26
	VPBROADCASTQ 152(DX), Z27
	VPBROADCASTQ 160(DX), Z28
	MOVL    $0x0f0f0f0f, AX
	VPBROADCASTD AX, Z29
	TESTQ   CX, CX
	JZ      done
	TESTQ   R8, R8
	JNZ     streamloop

storeloop:
	VMOVDQU64 (SI), Z0
	ENCRYPT
	VMOVDQU64 Z0, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     storeloop
	JMP     done

streamloop:
	VMOVDQU64 (SI), Z0
	ENCRYPT
	VMOVNTDQ Z0, (DI)
	ADDQ    $64, SI
	ADDQ    $64, DI
	DECQ    CX
	JNZ     streamloop
	SFENCE

done:
	VZEROUPPER
	RET
