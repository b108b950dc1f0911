// sdes-ecb: S-DES over every byte of a file in ECB mode, bitwise or by table, sequentially or in goroutine chunks.
package main

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"os"
	"slices"
	"strings"
	"time"
)

var (
	sdesP10   = []int{3, 5, 2, 7, 4, 10, 1, 9, 8, 6}
	sdesP8    = []int{6, 3, 7, 4, 8, 5, 10, 9}
	sdesIP    = []int{2, 6, 3, 1, 4, 8, 5, 7}
	sdesIPInv = []int{4, 1, 3, 5, 7, 2, 8, 6}
	sdesEP    = []int{4, 1, 2, 3, 2, 3, 4, 1}
	sdesP4    = []int{2, 4, 3, 1}
	sdesS0    = [4][4]uint{{1, 0, 3, 2}, {3, 2, 1, 0}, {0, 2, 1, 3}, {3, 1, 3, 2}}
	sdesS1    = [4][4]uint{{0, 1, 2, 3}, {2, 0, 1, 3}, {3, 0, 1, 0}, {2, 1, 0, 3}}
	// The same S-boxes as words for the bitwise kernel (see packSbox).
	sdesS0Packed, sdesS1Packed = packSbox(&sdesS0), packSbox(&sdesS1)
)

var sdesWorkload = &Workload{
	Name: "sdes-ecb",
	Params: []Param{{"input", "", false}, {"key", "642", false}, {"cipher", "table", false}, {"chunk", "", true},
		{"kernel", "", true}, {"table-kernel", "", true}},
	Models: []string{"seq", "goroutines"},
	ModelInfo: map[string]Model{
		"seq": {Family: "seq", Note: "the calling goroutine, the whole input as one range"},
		"goroutines": {Family: "green", Workers: true,
			Note: "a fixed pool of --workers goroutines; worker w takes chunk w, then claims further chunks from an atomic counter; chunk = min(1 MiB, ceil(size/workers)) bytes unless --chunk"},
	},
	Prepare: prepareSdes,
	Kernels: func() map[string]string {
		return map[string]string{
			"portable": "bitwise: " + sdesPortableBitwise + "; table: " + sdesPortableTable,
			"tuned": "bitwise: " + sdesTunedBitwise + "; table: " + tableKernelDetail(tableKernels()[0]) +
				" (the best this CPU runs; --table-kernel avx512vbmi|avx2|go names one)",
		}
	},
}

// The kernel classes (extra.kernel_detail). Portable: the spec's algorithm in plain Go, byte by
// byte. Tuned: bit-sliced rounds for bitwise, and for table the Go-assembly vector lookups.
const (
	sdesPortableBitwise = "scalar per-byte permutations and rounds (plain Go)"
	sdesPortableTable   = "256-byte table of the key, one lookup per byte (plain Go)"
	sdesTunedBitwise    = "bit-sliced S-DES, 64 bytes as 8 uint64 bit planes (plain Go)"
)

// tableKernelDetail names one of tableKernels() for extra.kernel_detail.
func tableKernelDetail(kernel string) string {
	switch kernel {
	case "avx512vbmi":
		return "Go asm VPERMI2B (AVX-512 VBMI)"
	case "avx2":
		return "Go asm VPSHUFB (AVX2)"
	}
	return "8 table lookups per 64-bit word (plain Go)"
}

// permute makes bit k of the result bit table[k] of value; bit 1 is the most significant of width.
func permute(value uint, width int, table []int) uint {
	var out uint
	for _, position := range table {
		out = out<<1 | (value>>(width-position))&1
	}
	return out
}

func rotate5(half uint, by int) uint { return (half<<by | half>>(5-by)) & 0b11111 }

// sdesSubkeys derives K1 and K2 from a 10-bit key.
func sdesSubkeys(key uint) (k1, k2 uint) {
	p10 := permute(key, 10, sdesP10)
	left, right := rotate5(p10>>5, 1), rotate5(p10&0b11111, 1)
	k1 = permute(left<<5|right, 10, sdesP8)
	left, right = rotate5(left, 2), rotate5(right, 2)
	k2 = permute(left<<5|right, 10, sdesP8)
	return k1, k2
}

// sboxRow is bits 1 and 4 of a 4-bit S-box input, sboxColumn bits 2 and 3.
func sboxRow(in uint) uint    { return (in>>2)&0b10 | in&1 }
func sboxColumn(in uint) uint { return (in >> 1) & 0b11 }

// packSbox puts an S-box in one word, the entry for 4-bit input n (row and column of n, as the
// spec reads them) in bits 2n and 2n+1. A lookup is then a shift of a register, not a load
// from the 4×4 array, and the row and column arithmetic, done here once, was a fifth of the
// kernel's instructions (185 a byte, now 148).
func packSbox(box *[4][4]uint) uint {
	var packed uint
	for in := range uint(16) {
		packed |= box[sboxRow(in)][sboxColumn(in)] << (2 * in)
	}
	return packed
}

// sboxLookup is the 2-bit entry of a packed S-box for a 4-bit input (the mask tells gc the shift
// is under 64, so it emits no check for larger shifts).
func sboxLookup(packed, in uint) uint { return packed >> (2 * in & 63) & 0b11 }

// substitute is S0 of the left and S1 of the right nibble of E/P(R) xor K, as S0 ‖ S1.
func substitute(mixed, s0, s1 uint) uint {
	return sboxLookup(s0, mixed>>4)<<2 | sboxLookup(s1, mixed&0xf)
}

// encryptBitwise is the portable bitwise kernel: IP, f_K1, SW, f_K2 and IP⁻¹ for each byte, the
// article's CPU-heavy form. The loop names each step instead of calling a function per byte or per
// round: gc inlines only functions that cost at most 80 (a whole round costs 90,
// `-gcflags=-m=2`), and a call in the loop spills every live register, since Go's ABI has no
// callee-saved ones. Written so, the loop is 148 instructions a byte, all in registers.
func encryptBitwise(dst, src []byte, k1, k2 uint) {
	s0, s1 := sdesS0Packed, sdesS1Packed // locals, so they stay in registers for the loop
	dst = dst[:len(src)]
	for i, plain := range src {
		block := initialPermute(uint(plain))
		left, right := block>>4, block&0xf
		left ^= permute4(substitute(expandPermute(right)^k1, s0, s1)) // f_K1
		left, right = right, left                                     // SW
		left ^= permute4(substitute(expandPermute(right)^k2, s0, s1)) // f_K2
		dst[i] = byte(inversePermute(left<<4 | right))
	}
}

// sdesEncryptByte is the cipher of one byte (the spec's test vectors) through the same kernel.
func sdesEncryptByte(k1, k2 uint, plain byte) byte {
	var out [1]byte
	encryptBitwise(out[:], []byte{plain}, k1, k2)
	return out[0]
}

// The per-byte permutations move the bits that travel the same distance together, one mask and
// one shift per distance (the tests hold each equal to permute over the spec's table): a loop
// over the tables made the bitwise form ~5x slower, and moving the bits one at a time ~1.2x.

// initialPermute is IP = 2 6 3 1 4 8 5 7.
func initialPermute(b uint) uint {
	return (b&0x40)<<1 | (b&0x04)<<4 | b&0x20 | (b&0x80)>>3 | (b&0x12)>>1 | (b&0x01)<<2 | (b&0x08)>>2
}

// inversePermute is IP⁻¹ = 4 1 3 5 7 2 8 6.
func inversePermute(b uint) uint {
	return (b&0x10)<<3 | (b&0x80)>>1 | b&0x20 | (b&0x09)<<1 | (b&0x02)<<2 | (b&0x40)>>4 | (b&0x04)>>2
}

// expandPermute is E/P = 4 1 2 3 2 3 4 1 over a 4-bit half.
func expandPermute(r uint) uint {
	return (r&1)<<7 | (r&0xe)<<3 | (r&7)<<1 | r>>3
}

// permute4 is P4 = 2 4 3 1.
func permute4(s uint) uint {
	return (s&4)<<1 | (s&1)<<2 | s&2 | s>>3
}

// sdesTable is the key's table: the bitwise kernel over the bytes 0..255.
func sdesTable(key uint) *[256]byte {
	k1, k2 := sdesSubkeys(key)
	var every, table [256]byte
	for b := range every {
		every[b] = byte(b)
	}
	encryptBitwise(table[:], every[:], k1, k2)
	return &table
}

// encryptRange fills dst from src with one cipher; both forms must give the same bytes.
type encryptRange func(dst, src []byte)

func bitwiseCipher(key uint) encryptRange {
	k1, k2 := sdesSubkeys(key)
	return func(dst, src []byte) { encryptBitwise(dst, src, k1, k2) }
}

// tableCipher derives the key's table, then translates through it with a tuned kernel of
// sdestable_amd64.go: by default the fastest the CPU offers, `--table-kernel` names another.
func tableCipher(kernel string) func(key uint) encryptRange {
	return func(key uint) encryptRange { return tableLookupWith(kernel, sdesTable(key)) }
}

// portableTableCipher is the portable table form: derive the key's 256-byte table, then one
// lookup per byte, as the spec describes it.
func portableTableCipher(key uint) encryptRange {
	table := sdesTable(key)
	return func(dst, src []byte) {
		dst = dst[:len(src)]
		for i, b := range src {
			dst[i] = table[b]
		}
	}
}

// lookupWords is the tuned kernels' plain-Go loop: eight lookups per 64-bit load and store, about 1.4x
// the byte-at-a-time loop, since Go does not vectorise the byte loop itself. Re-slicing both
// sides each step (rather than indexing with i) leaves the loop without bounds checks.
func lookupWords(dst, src []byte, table *[256]byte) {
	dst = dst[:len(src)]
	for len(src) >= 8 && len(dst) >= 8 {
		word := binary.LittleEndian.Uint64(src)
		binary.LittleEndian.PutUint64(dst, uint64(table[byte(word)])|
			uint64(table[byte(word>>8)])<<8|uint64(table[byte(word>>16)])<<16|
			uint64(table[byte(word>>24)])<<24|uint64(table[byte(word>>32)])<<32|
			uint64(table[byte(word>>40)])<<40|uint64(table[byte(word>>48)])<<48|
			uint64(table[byte(word>>56)])<<56)
		src, dst = src[8:], dst[8:]
	}
	for i, b := range src {
		if i < len(dst) {
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
	for _, v := range args.Variants {
		if v > 1023 {
			return nil, usagef("sdes-ecb's --variants are keys (0..1023), got %d", v)
		}
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
	return sdesGoroutines(newCipher, uint(key), ciphertext, plaintext, plan), nil
}

// sdesCipherNamed picks --cipher and --kernel; a tuned table also its vector kernel, recorded
// as extra.table_kernel.
func sdesCipherNamed(args *Args) (func(key uint) encryptRange, error) {
	tuned, err := kernelClass(args, true)
	if err != nil {
		return nil, err
	}
	kernel := args.String("table-kernel")
	if kernel != "" && (!tuned || args.String("cipher") != "table") {
		return nil, usagef("--table-kernel belongs to --cipher table --kernel tuned")
	}
	switch args.String("cipher") {
	case "bitwise":
		if tuned {
			args.Extra["kernel_detail"] = sdesTunedBitwise
			return slicedCipher, nil
		}
		args.Extra["kernel_detail"] = sdesPortableBitwise
		return bitwiseCipher, nil
	case "table":
		if !tuned {
			args.Extra["kernel_detail"] = sdesPortableTable
			return portableTableCipher, nil
		}
		kernels := tableKernels()
		if kernel == "" {
			kernel = kernels[0]
		} else if !slices.Contains(kernels, kernel) {
			return nil, usagef("--table-kernel %q is not one this CPU runs; valid here: %s", kernel, strings.Join(kernels, ", "))
		}
		args.Extra["table_kernel"] = kernel
		args.Extra["kernel_detail"] = tableKernelDetail(kernel)
		return tableCipher(kernel), nil
	}
	return nil, usagef("unknown --cipher %q for sdes-ecb; valid: bitwise, table", args.String("cipher"))
}

// sdesSeq times the key schedule (of this repetition's variant key) and the cipher over the
// whole input on the calling goroutine. The buffer needs no clearing between repetitions: the
// ceiling's copy leaves plaintext in it, so a byte the cipher skipped would change the checksum.
func sdesSeq(newCipher func(uint) encryptRange, key uint, ciphertext, plaintext []byte) Repetition {
	return func(timer *Timer) (Result, error) {
		repKey := uint(timer.Variant(uint64(key)))
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

// sdesGoroutines times the key schedule, starting the pool, every chunk and joining the pool;
// the copy ceiling runs after the checksum on a fresh pool with the same chunks.
func sdesGoroutines(newCipher func(uint) encryptRange, key uint, ciphertext, plaintext []byte, plan chunkPlan) Repetition {
	return func(timer *Timer) (Result, error) {
		repKey := uint(timer.Variant(uint64(key)))
		timer.Start()
		busy := newBusyLog(timer.started, plan.workers)
		cipher := newCipher(repKey)
		run := runPool(plan, busy, func(_, start, end int) { cipher(ciphertext[start:end], plaintext[start:end]) })
		timer.Stop()
		var checksum string
		timer.Phase("checksum", func() { checksum = sha256Hex(ciphertext) })
		ceilingStart := time.Now()
		runPool(plan, nil, func(_, start, end int) { copy(ciphertext[start:end], plaintext[start:end]) })
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
