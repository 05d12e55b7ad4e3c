#include "textflag.h"

// func indexPairSSE2(p *byte, n, k1, k2 int, b1, m1, b2, m2 byte) int
//
// The first i in [0, n&^15) with p[i+k1]|m1 == b1 and p[i+k2]|m2 == b2, or -1: sixteen offsets
// at a time with SSE2 (every amd64 has it). The caller guarantees that p[i+k1+15] and
// p[i+k2+15] can be read for every i < n&^15.
TEXT ·indexPairSSE2(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ k1+16(FP), R8
	MOVQ k2+24(FP), R9
	ADDQ SI, R8
	ADDQ SI, R9
	ANDQ $-16, CX

	MOVBLZX b1+32(FP), AX
	MOVD AX, X3
	PUNPCKLBW X3, X3
	PSHUFLW $0, X3, X3
	PUNPCKLQDQ X3, X3
	MOVBLZX m1+33(FP), AX
	MOVD AX, X2
	PUNPCKLBW X2, X2
	PSHUFLW $0, X2, X2
	PUNPCKLQDQ X2, X2
	MOVBLZX b2+34(FP), AX
	MOVD AX, X5
	PUNPCKLBW X5, X5
	PSHUFLW $0, X5, X5
	PUNPCKLQDQ X5, X5
	MOVBLZX m2+35(FP), AX
	MOVD AX, X4
	PUNPCKLBW X4, X4
	PSHUFLW $0, X4, X4
	PUNPCKLQDQ X4, X4

	XORQ DI, DI
loop:
	CMPQ DI, CX
	JAE none
	MOVOU (R8)(DI*1), X0
	MOVOU (R9)(DI*1), X1
	POR X2, X0
	POR X4, X1
	PCMPEQB X3, X0
	PCMPEQB X5, X1
	PAND X1, X0
	PMOVMSKB X0, AX
	TESTL AX, AX
	JNZ found
	ADDQ $16, DI
	JMP loop
found:
	BSFL AX, AX
	ADDQ DI, AX
	MOVQ AX, ret+40(FP)
	RET
none:
	MOVQ $-1, ret+40(FP)
	RET

// func indexLeadsSSE2(p *byte, n int, r *[6]byte, k int, b1, b2 byte) int
//
// The first i in [0, n&^15) where p[i]-r[2j] <= r[2j+1] (unsigned) for some j < 3, or p[i+k] ==
// b1 and p[i+k+1] == b2; -1 when there is none. The caller guarantees that p[i+k+16] can be
// read for every i < n&^15.
TEXT ·indexLeadsSSE2(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ r+16(FP), DX
	MOVQ k+24(FP), R8
	ADDQ SI, R8
	ANDQ $-16, CX

#define BCAST(off, reg) \
	MOVBLZX off(DX), AX \
	MOVD AX, reg \
	PUNPCKLBW reg, reg \
	PSHUFLW $0, reg, reg \
	PUNPCKLQDQ reg, reg

	BCAST(0, X8)
	BCAST(1, X9)
	BCAST(2, X10)
	BCAST(3, X11)
	BCAST(4, X12)
	BCAST(5, X13)
	MOVBLZX b1+32(FP), AX
	MOVD AX, X14
	PUNPCKLBW X14, X14
	PSHUFLW $0, X14, X14
	PUNPCKLQDQ X14, X14
	MOVBLZX b2+33(FP), AX
	MOVD AX, X15
	PUNPCKLBW X15, X15
	PSHUFLW $0, X15, X15
	PUNPCKLQDQ X15, X15

	XORQ DI, DI
lloop:
	CMPQ DI, CX
	JAE lnone
	MOVOU (SI)(DI*1), X0
	// range 0
	MOVO X0, X1
	PSUBB X8, X1
	MOVO X1, X2
	PMINUB X9, X2
	PCMPEQB X1, X2
	// range 1
	MOVO X0, X1
	PSUBB X10, X1
	MOVO X1, X3
	PMINUB X11, X3
	PCMPEQB X1, X3
	POR X3, X2
	// range 2
	MOVO X0, X1
	PSUBB X12, X1
	MOVO X1, X3
	PMINUB X13, X3
	PCMPEQB X1, X3
	POR X3, X2
	// pair
	MOVOU (R8)(DI*1), X4
	MOVOU 1(R8)(DI*1), X5
	PCMPEQB X14, X4
	PCMPEQB X15, X5
	PAND X5, X4
	POR X4, X2
	PMOVMSKB X2, AX
	TESTL AX, AX
	JNZ lfound
	ADDQ $16, DI
	JMP lloop
lfound:
	BSFL AX, AX
	ADDQ DI, AX
	MOVQ AX, ret+40(FP)
	RET
lnone:
	MOVQ $-1, ret+40(FP)
	RET

// func indexPairAVX2(p *byte, n, k1, k2 int, b1, m1, b2, m2 byte) int
//
// indexPairSSE2 thirty-two offsets at a time, over [0, n&^31).
TEXT ·indexPairAVX2(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ k1+16(FP), R8
	MOVQ k2+24(FP), R9
	ADDQ SI, R8
	ADDQ SI, R9
	ANDQ $-32, CX
	VPBROADCASTB b1+32(FP), Y3
	VPBROADCASTB m1+33(FP), Y2
	VPBROADCASTB b2+34(FP), Y5
	VPBROADCASTB m2+35(FP), Y4
	XORQ DI, DI
aloop:
	CMPQ DI, CX
	JAE anone
	VMOVDQU (R8)(DI*1), Y0
	VMOVDQU (R9)(DI*1), Y1
	VPOR Y2, Y0, Y0
	VPOR Y4, Y1, Y1
	VPCMPEQB Y3, Y0, Y0
	VPCMPEQB Y5, Y1, Y1
	VPAND Y1, Y0, Y0
	VPMOVMSKB Y0, AX
	TESTL AX, AX
	JNZ afound
	ADDQ $32, DI
	JMP aloop
afound:
	VZEROUPPER
	BSFL AX, AX
	ADDQ DI, AX
	MOVQ AX, ret+40(FP)
	RET
anone:
	VZEROUPPER
	MOVQ $-1, ret+40(FP)
	RET

// func indexLeadsAVX2(p *byte, n int, r *[6]byte, k int, b1, b2 byte) int
//
// indexLeadsSSE2 thirty-two offsets at a time, over [0, n&^31).
TEXT ·indexLeadsAVX2(SB), NOSPLIT, $0-48
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ r+16(FP), DX
	MOVQ k+24(FP), R8
	ADDQ SI, R8
	ANDQ $-32, CX
	VPBROADCASTB 0(DX), Y8
	VPBROADCASTB 1(DX), Y9
	VPBROADCASTB 2(DX), Y10
	VPBROADCASTB 3(DX), Y11
	VPBROADCASTB 4(DX), Y12
	VPBROADCASTB 5(DX), Y13
	VPBROADCASTB b1+32(FP), Y14
	VPBROADCASTB b2+33(FP), Y15
	XORQ DI, DI
bloop:
	CMPQ DI, CX
	JAE bnone
	VMOVDQU (SI)(DI*1), Y0
	VPSUBB Y8, Y0, Y1
	VPMINUB Y9, Y1, Y2
	VPCMPEQB Y1, Y2, Y2
	VPSUBB Y10, Y0, Y1
	VPMINUB Y11, Y1, Y3
	VPCMPEQB Y1, Y3, Y3
	VPOR Y3, Y2, Y2
	VPSUBB Y12, Y0, Y1
	VPMINUB Y13, Y1, Y3
	VPCMPEQB Y1, Y3, Y3
	VPOR Y3, Y2, Y2
	VMOVDQU (R8)(DI*1), Y4
	VMOVDQU 1(R8)(DI*1), Y5
	VPCMPEQB Y14, Y4, Y4
	VPCMPEQB Y15, Y5, Y5
	VPAND Y5, Y4, Y4
	VPOR Y4, Y2, Y2
	VPMOVMSKB Y2, AX
	TESTL AX, AX
	JNZ bfound
	ADDQ $32, DI
	JMP bloop
bfound:
	VZEROUPPER
	BSFL AX, AX
	ADDQ DI, AX
	MOVQ AX, ret+40(FP)
	RET
bnone:
	VZEROUPPER
	MOVQ $-1, ret+40(FP)
	RET
