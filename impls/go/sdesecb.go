// sdes-ecb: S-DES over every byte of a file in ECB mode, bitwise or by table, sequentially or in goroutine chunks.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"time"
)

// The spec's tables (docs/workloads/sdes-ecb.md, "Reference procedure"): positions count from
// 1, the most significant bit; the S-boxes are 4×4 arrays indexed by row and column.
var (
	sdesP10   = []uint{3, 5, 2, 7, 4, 10, 1, 9, 8, 6}
	sdesP8    = []uint{6, 3, 7, 4, 8, 5, 10, 9}
	sdesIP    = []uint{2, 6, 3, 1, 4, 8, 5, 7}
	sdesIPInv = []uint{4, 1, 3, 5, 7, 2, 8, 6}
	sdesEP    = []uint{4, 1, 2, 3, 2, 3, 4, 1}
	sdesP4    = []uint{2, 4, 3, 1}
	sdesS0    = [4][4]uint{{1, 0, 3, 2}, {3, 2, 1, 0}, {0, 2, 1, 3}, {3, 1, 3, 2}}
	sdesS1    = [4][4]uint{{0, 1, 2, 3}, {2, 0, 1, 3}, {3, 0, 1, 0}, {2, 1, 0, 3}}
)

var sdesWorkload = &Workload{
	Name: "sdes-ecb",
	Params: []Param{{"input", "", false}, {"key", "642", false}, {"cipher", "table", false}, {"chunk", "", true},
		{"kernel", "", true}, {"table-kernel", "", true}, {"bitwise-kernel", "", true}},
	Models: []string{"seq", "goroutines"},
	ModelInfo: map[string]Model{
		"seq": {Family: "seq", Note: "the calling goroutine, the whole input as one range"},
		"goroutines": {Family: "green", Workers: true,
			Note:             "a fixed pool of --workers goroutines; worker w takes chunk w, then claims further chunks from an atomic counter; chunk = min(1 MiB, ceil(size/workers)) bytes unless --chunk",
			Start:            map[string]string{"warm": poolMadeOnce},
			StartUnavailable: map[string]string{"cold": goroutinesAlwaysWarm}},
	},
	Prepare: prepareSdes,
	Kernels: func() map[string]string {
		return map[string]string{
			"portable": referenceTransliterated,
			"tuned": "bitwise: " + firstThatRuns(sdesBitwiseTechniques).describe() + "; table: " +
				firstThatRuns(sdesTableTechniques).describe() + " (the best this CPU runs; " + sdesTechniqueVariable +
				" or --bitwise-kernel " + strings.ReplaceAll(labelsOf(sdesBitwiseTechniques), ", ", "|") +
				", --table-kernel " + strings.ReplaceAll(labelsOf(sdesTableTechniques), ", ", "|") +
				" names one; one this CPU lacks is exit 2)",
		}
	},
}

// referenceTransliterated is every portable kernel's name (docs/protocol.md, "Kernel classes").
const referenceTransliterated = "reference, transliterated"

// What follows down to portableTableCipher is the portable kernel: the spec's reference procedure,
// transliterated (the same tables, loops and order of operations).

// permute makes bit k of the result bit table[k] of value; bit 1 is the most significant of width.
func permute(value, width uint, table []uint) uint {
	var out uint
	for _, position := range table {
		out = out<<1 | (value>>(width-position))&1
	}
	return out
}

// rotate5 is a left rotation of a 5-bit half.
func rotate5(half, by uint) uint { return (half<<by | half>>(5-by)) & 0b11111 }

// sdesSubkeys derives K1 and K2 from a 10-bit key.
func sdesSubkeys(key uint) (k1, k2 uint) {
	p10 := permute(key, 10, sdesP10)
	left, right := rotate5(p10>>5, 1), rotate5(p10&0b11111, 1)
	k1 = permute(left<<5|right, 10, sdesP8)
	left, right = rotate5(left, 2), rotate5(right, 2)
	k2 = permute(left<<5|right, 10, sdesP8)
	return k1, k2
}

// sbox looks a 4-bit input up: row = bits 1 and 4, column = bits 2 and 3.
func sbox(box *[4][4]uint, bits4 uint) uint {
	row := ((bits4>>3)&1)<<1 | bits4&1
	column := (bits4 >> 1) & 0b11
	return box[row][column]
}

// fK is f_K on an 8-bit block whose left half is the high 4 bits and right half the low 4.
func fK(block, subkey uint) uint {
	left, right := block>>4, block&0xf
	mixed := permute(right, 4, sdesEP) ^ subkey
	s := sbox(&sdesS0, mixed>>4)<<2 | sbox(&sdesS1, mixed&0xf)
	return (left^permute(s, 4, sdesP4))<<4 | right
}

// encryptByte is C = IP⁻¹(f_K2(SW(f_K1(IP(P))))).
func encryptByte(k1, k2, plain uint) uint {
	block := fK(permute(plain, 8, sdesIP), k1)
	swapped := (block&0xf)<<4 | block>>4
	return permute(fK(swapped, k2), 8, sdesIPInv)
}

// encryptBitwise is the portable bitwise cipher over a range: encryptByte for each byte.
func encryptBitwise(dst, src []byte, k1, k2 uint) {
	for i, plain := range src {
		dst[i] = byte(encryptByte(k1, k2, uint(plain)))
	}
}

// sdesTable is the key's table: encryptByte of every byte 0..255.
func sdesTable(key uint) *[256]byte {
	k1, k2 := sdesSubkeys(key)
	var table [256]byte
	for b := range uint(256) {
		table[b] = byte(encryptByte(k1, k2, b))
	}
	return &table
}

// encryptRange fills dst from src with one cipher; every form must give the same bytes.
type encryptRange func(dst, src []byte)

// bitwiseCipher is the portable bitwise form: the key schedule, then encryptByte per byte.
func bitwiseCipher(key uint) encryptRange {
	k1, k2 := sdesSubkeys(key)
	return func(dst, src []byte) { encryptBitwise(dst, src, k1, k2) }
}

// portableTableCipher is the portable table form: derive the key's 256-byte table, then one
// lookup per byte.
func portableTableCipher(key uint) encryptRange {
	table := sdesTable(key)
	return func(dst, src []byte) {
		for i, b := range src {
			dst[i] = table[b]
		}
	}
}

// sdesChunkCap is the contract's cap on a parallel chunk: 1 MiB.
const sdesChunkCap = 1 << 20

func prepareSdes(args *Args) (Repetition, error) {
	key, err := args.Int("key")
	if err != nil || key > 1023 {
		return nil, usagef("--key must be a 10-bit integer (0..1023), got %q", args.String("key"))
	}
	newCipher, err := sdesCipherNamed(args)
	if err != nil {
		return nil, err
	}
	chunkOverride := 0
	if args.String("chunk") != "" {
		if chunkOverride, err = args.Int("chunk"); err != nil || chunkOverride < 1 {
			return nil, usagef("--chunk must be a positive byte count, got %q", args.String("chunk"))
		}
	}
	loadStart := time.Now()
	plaintext, err := os.ReadFile(args.String("input"))
	if err != nil {
		return nil, usagef("cannot read --input: %v", err)
	}
	// The ciphertext buffer is allocated and every page of it written once, here, so no
	// repetition pays the kernel's first touch; every repetition writes into this same buffer.
	ciphertext := make([]byte, len(plaintext))
	copy(ciphertext, plaintext)
	args.Extra["load_ns"] = time.Since(loadStart).Nanoseconds()
	if args.Model == "seq" {
		return sdesSeq(newCipher, uint(key), ciphertext, plaintext), nil
	}
	plan := planChunks(len(plaintext), args.Workers, sdesChunkCap, chunkOverride)
	pool := startWarmPool(args, plan.workers)
	return sdesGoroutines(newCipher, uint(key), ciphertext, plaintext, plan, pool), nil
}

// sdesCipherNamed picks --cipher and --kernel, and for tuned the technique of its cipher (the
// best this CPU runs, or the one PARBENCH_SDES_TECHNIQUE, --bitwise-kernel or --table-kernel
// names), recorded as extra.bitwise_kernel or extra.table_kernel and first in kernel_detail.
func sdesCipherNamed(args *Args) (func(key uint) encryptRange, error) {
	tuned, err := kernelClass(args, true)
	if err != nil {
		return nil, err
	}
	cipher := args.String("cipher")
	if cipher != "bitwise" && cipher != "table" {
		return nil, usagef("unknown --cipher %q for sdes-ecb; valid: bitwise, table", cipher)
	}
	if args.String("table-kernel") != "" && (!tuned || cipher != "table") {
		return nil, usagef("--table-kernel belongs to --cipher table --kernel tuned")
	}
	if args.String("bitwise-kernel") != "" && (!tuned || cipher != "bitwise") {
		return nil, usagef("--bitwise-kernel belongs to --cipher bitwise --kernel tuned")
	}
	switch {
	case !tuned:
		args.Extra["kernel_detail"] = referenceTransliterated
		if cipher == "bitwise" {
			return bitwiseCipher, nil
		}
		return portableTableCipher, nil
	case cipher == "bitwise":
		chosen, err := chooseTechnique(args, "bitwise-kernel", sdesTechniqueVariable, "the bitwise cipher", sdesBitwiseTechniques)
		if err != nil {
			return nil, err
		}
		args.Extra["bitwise_kernel"], args.Extra["kernel_detail"] = chosen.label, chosen.describe()
		return chosen.kernel, nil
	}
	chosen, err := chooseTechnique(args, "table-kernel", sdesTechniqueVariable, "the table cipher", sdesTableTechniques)
	if err != nil {
		return nil, err
	}
	args.Extra["table_kernel"], args.Extra["kernel_detail"] = chosen.label, chosen.describe()
	return tableCipher(chosen.kernel), nil
}

// repetitionKey is the key a repetition encrypts under: its variant (protocol 3), a 10-bit key.
func repetitionKey(timer *Timer, key uint) (uint, error) {
	repKey := timer.Variant(uint64(key))
	if repKey > 1023 {
		return 0, usagef("sdes-ecb's variants are keys (0..1023), got %d", repKey)
	}
	return uint(repKey), nil
}

// sdesSeq times the key schedule (of this repetition's variant key) and the cipher over the
// whole input on the calling goroutine. The buffer needs no clearing between repetitions: the
// ceiling's copy leaves plaintext in it, so a byte the cipher skipped would change the checksum.
func sdesSeq(newCipher func(uint) encryptRange, key uint, ciphertext, plaintext []byte) Repetition {
	return func(timer *Timer) (Result, error) {
		repKey, err := repetitionKey(timer, key)
		if err != nil {
			return Result{}, err
		}
		timer.Start()
		newCipher(repKey)(ciphertext, plaintext)
		timer.Stop()
		var checksum string
		timer.Phase("checksum", func() { checksum = sha256Hex(ciphertext) })
		ceilingStart := time.Now()
		copy(ciphertext, plaintext) // Go's memmove: AVX, non-temporal stores from 1 MiB up
		return Result{Items: int64(len(plaintext)), Checksum: checksum, Extra: map[string]any{
			"ceiling": "copy", "ceiling_ns": time.Since(ceilingStart).Nanoseconds()}}, nil
	}
}

// sdesGoroutines times the key schedule, handing the chunks to the warm pool and waiting for
// it; the copy ceiling runs after the checksum on the same pool with the same chunks.
func sdesGoroutines(newCipher func(uint) encryptRange, key uint, ciphertext, plaintext []byte, plan chunkPlan,
	pool *workerPool) Repetition {
	return func(timer *Timer) (Result, error) {
		repKey, err := repetitionKey(timer, key)
		if err != nil {
			return Result{}, err
		}
		timer.Start()
		busy := newBusyLog(timer.started, plan.workers)
		cipher := newCipher(repKey)
		run := pool.run(plan, busy, func(_, start, end int) { cipher(ciphertext[start:end], plaintext[start:end]) })
		timer.Stop()
		var checksum string
		timer.Phase("checksum", func() { checksum = sha256Hex(ciphertext) })
		ceilingStart := time.Now()
		pool.run(plan, nil, func(_, start, end int) { copy(ciphertext[start:end], plaintext[start:end]) })
		extra := plan.extra(run)
		extra["ceiling"], extra["ceiling_ns"] = "copy", time.Since(ceilingStart).Nanoseconds()
		extra["busy"] = busy.intervals()
		return Result{Items: int64(len(plaintext)), Checksum: checksum, Extra: extra}, nil
	}
}

func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}
