// keygen: strong random keys encoded as lower-case padded Base32, sequentially or by a goroutine pool.
package main

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base32"
	"strconv"
	"strings"
	"time"
	"unsafe"
)

var base32Lower = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.StdPadding)

// keygenChunkCap is the contract's cap on a parallel chunk: 1024 keys.
const keygenChunkCap = 1024

var keygenWorkload = &Workload{
	Name: "keygen",
	Params: []Param{{"count", "2000", false}, {"bytes", "1000", false}, {"source", "strong", false},
		{"seed", "", true}, {"chunk", "", true}, {"kernel", "", true}, {"probes", "", true}, {"base32-kernel", "", true}},
	Models: []string{"seq", "goroutines"},
	ModelInfo: map[string]Model{
		"seq": {Family: "seq", Note: "one goroutine, keys in order"},
		"goroutines": {Family: "green", Workers: true,
			Note:             "a fixed pool of --workers goroutines; worker w takes chunk w, then claims further chunks from an atomic counter; chunk = min(1024, ceil(count/workers)) keys unless --chunk",
			Start:            map[string]string{"warm": poolMadeOnce},
			StartUnavailable: map[string]string{"cold": goroutinesAlwaysWarm}},
	},
	Prepare: prepareKeygen,
	Kernels: func() map[string]string {
		best := firstThatRuns(keygenBase32Techniques)
		return map[string]string{"portable": keygenPortable, "tuned": best.label + ": " + keygenTunedGenerator + " + " +
			best.detail + " (the best Base32 this CPU runs; " + keygenTechniqueVariable + " or --base32-kernel " +
			strings.ReplaceAll(labelsOf(keygenBase32Techniques), ", ", "|") + " names one, one this CPU lacks is exit 2)"}
	},
}

// The kernel classes (extra.kernel_detail) with the strong source; the seeded source swaps
// only the generator for SplitMix64. The portable kernel is the spec's steps with the standard
// library's CSPRNG and Base32 encoder, named after the reference's colon.
const (
	keygenPortableGenerator = "crypto/rand.Read per chunk"
	keygenTunedGenerator    = "AES-128-CTR keystream (crypto/aes + crypto/cipher, AES-NI) per worker, keyed from crypto/rand"
	keygenPortableEncoder   = "encoding/base32 EncodeToString per key"
	keygenPortable          = referenceTransliterated + ": " + keygenPortableGenerator + ", " + keygenPortableEncoder
)

// keySource fills random with the bytes of consecutive keys, the first being key `first`.
type keySource func(random []byte, first int)

// keygenCase is one case's parameters, shared by the work and its ceiling. Both sources and
// both kernels run the same structure (chunks, one reused buffer per worker, the []string
// store); newSource and encode are all that differ.
type keygenCase struct {
	count, keyBytes int
	plan            chunkPlan
	// newSource makes one worker's source for a repetition of the given seed (ignored by strong);
	// each worker calls it at its first chunk, inside the timed region.
	newSource func(seed uint64) keySource
	encode    func(raw []byte) string
	// encodeInto is the encoder the ceiling times: the tuned kernel's, else encoding/base32's.
	encodeInto func(dst, src []byte)
	seed       uint64
	probes     []int
	pool       *workerPool // the goroutines model's, made before the ready line; nil for seq
}

func prepareKeygen(args *Args) (Repetition, error) {
	count, err := args.Int("count")
	if err != nil {
		return nil, err
	}
	keyBytes, err := args.Int("bytes")
	if err != nil {
		return nil, err
	}
	tuned, err := kernelClass(args, true)
	if err != nil {
		return nil, err
	}
	c := keygenCase{count: count, keyBytes: keyBytes,
		encode: portableEncodeKey, encodeInto: base32Lower.Encode}
	generator, encoder, label := keygenPortableGenerator, keygenPortableEncoder, ""
	if tuned {
		chosen, err := chooseTechnique(args, "base32-kernel", keygenTechniqueVariable, "keygen's Base32", keygenBase32Techniques)
		if err != nil {
			return nil, err
		}
		args.Extra["base32_kernel"], label = chosen.label, chosen.label
		c.encodeInto, c.encode = chosen.kernel, encodeKeyWith(chosen.kernel)
		generator, encoder = keygenTunedGenerator, chosen.detail
	} else if args.String("base32-kernel") != "" {
		return nil, usagef("--base32-kernel belongs to --kernel tuned")
	}
	switch args.String("source") {
	case "strong":
		c.newSource = strongSource(tuned)
	case "seeded":
		if c.seed, err = args.Uint64("seed"); err != nil {
			return nil, usagef("--source seeded needs --seed S (a non-negative integer)")
		}
		c.newSource, generator = seededSource(keyBytes), "SplitMix64 (seeded)"
	default:
		return nil, usagef("unknown --source %q for keygen; valid: strong, seeded", args.String("source"))
	}
	if tuned {
		args.Extra["kernel_detail"] = label + ": " + generator + " + " + encoder
	} else {
		args.Extra["kernel_detail"] = referenceTransliterated + ": " + generator + ", " + encoder
	}
	if c.probes, err = parseProbes(args.String("probes"), count); err != nil {
		return nil, err
	}
	chunkOverride := 0
	if args.String("chunk") != "" {
		if chunkOverride, err = args.Int("chunk"); err != nil || chunkOverride < 1 {
			return nil, usagef("--chunk must be a positive number of keys, got %q", args.String("chunk"))
		}
	}
	c.plan = planChunks(count, 1, keygenChunkCap, chunkOverride)
	if args.Model == "goroutines" {
		c.plan = planChunks(count, args.Workers, keygenChunkCap, chunkOverride)
		c.pool = startWarmPool(args, c.plan.workers)
	}
	return func(timer *Timer) (Result, error) {
		seed := timer.Variant(c.seed)
		timer.Start()
		var busy *busyLog
		if c.pool != nil {
			busy = newBusyLog(timer.started, c.plan.workers)
		}
		keys, run := c.generate(seed, busy)
		timer.Stop()
		var checksum string
		timer.Phase("checksum", func() { checksum = keygenChecksum(keys) })
		extra := c.ceiling(seed)
		extra["probes"] = c.probe(keys)
		if c.pool != nil {
			for k, v := range c.plan.extra(run) {
				extra[k] = v
			}
			extra["busy"] = busy.intervals()
		}
		return Result{Items: int64(count), Checksum: checksum, Extra: extra}, nil
	}, nil
}

// parseProbes reads --probes: key indices below count.
func parseProbes(list string, count int) ([]int, error) {
	probes := []int{}
	if list == "" {
		return probes, nil
	}
	for _, field := range strings.Split(list, ",") {
		index, err := strconv.Atoi(strings.TrimSpace(field))
		if err != nil || index < 0 || index >= count {
			return nil, usagef("--probes must be key indices 0..%d separated by commas, got %q", count-1, list)
		}
		probes = append(probes, index)
	}
	return probes, nil
}

// probe is extra.probes: the asked keys, by their index in the generation order (the store
// holds key i at index i whatever worker made it).
func (c keygenCase) probe(keys []string) []string {
	out := make([]string, len(c.probes))
	for i, index := range c.probes {
		out[i] = keys[index]
	}
	return out
}

// strongSource: portable reads the whole chunk's bytes with one crypto/rand.Read (the
// kernel's CSPRNG; per key, the call's overhead was a few per cent more). Tuned gives each
// worker an AES-128-CTR keystream (the generator of NIST's CTR_DRBG, 128-bit security, as
// Rust's tuned kernel) keyed and started from 32 bytes of crypto/rand: the standard library's
// AES-NI assembly makes it about 4x faster than math/rand/v2's ChaCha8 (3.6 against 14.5 ms for
// 25 MB here, 2026-11-28), which the tuned kernel used before.
func strongSource(tuned bool) func(uint64) keySource {
	if !tuned {
		return func(uint64) keySource {
			return func(random []byte, _ int) {
				rand.Read(random) // never fails since Go 1.24: it crashes the program instead
			}
		}
	}
	return func(uint64) keySource {
		var seed [32]byte
		rand.Read(seed[:])
		return aesCTRSource(seed)
	}
}

// aesCTRSource is the AES-128-CTR keystream under key seed[:16] from counter block seed[16:].
func aesCTRSource(seed [32]byte) keySource {
	block, err := aes.NewCipher(seed[:16])
	if err != nil {
		panic(err) // a 16-byte key is always valid
	}
	keystream := cipher.NewCTR(block, seed[16:])
	return func(random []byte, _ int) {
		clear(random) // the keystream is what CTR XORs into its input; over zeros it is the output
		keystream.XORKeyStream(random, random)
	}
}

// seededSource is SplitMix64 key by key: key i's bytes are bytes(seed, i, keyBytes).
func seededSource(keyBytes int) func(uint64) keySource {
	return func(seed uint64) keySource {
		return func(random []byte, first int) {
			for k := range len(random) / max(keyBytes, 1) {
				key := random[k*keyBytes : k*keyBytes : (k+1)*keyBytes]
				splitmix64Bytes(key, seed, uint64(first+k), keyBytes) // appends in place
			}
		}
	}
}

// forEachChunk runs work over the case's chunks: on the pool for goroutines, inline for seq.
func (c keygenCase) forEachChunk(busy *busyLog, work func(worker, start, end int)) poolRun {
	if c.pool != nil {
		return c.pool.run(c.plan, busy, work)
	}
	runInline(c.plan, work)
	return poolRun{chunks: c.plan.chunks(), workersUsed: 1}
}

// generate makes every key into one slice the caller holds. Each worker makes its source at
// its first chunk and reuses one buffer for its chunks' random bytes; every key is a string
// of its own.
func (c keygenCase) generate(seed uint64, busy *busyLog) ([]string, poolRun) {
	keys := make([]string, c.count)
	buffers := make([][]byte, c.plan.workers)
	sources := make([]keySource, c.plan.workers)
	run := c.forEachChunk(busy, func(worker, start, end int) {
		if sources[worker] == nil {
			sources[worker] = c.newSource(seed)
		}
		random := c.chunkBuffer(buffers, worker, end-start)
		sources[worker](random, start)
		for k := range end - start {
			keys[start+k] = c.encode(random[k*c.keyBytes : (k+1)*c.keyBytes])
		}
	})
	return keys, run
}

// chunkBuffer is the worker's reusable buffer for `keys` keys' random bytes.
func (c keygenCase) chunkBuffer(buffers [][]byte, worker, keys int) []byte {
	if buffers[worker] == nil {
		buffers[worker] = make([]byte, c.plan.chunk*c.keyBytes)
	}
	return buffers[worker][:keys*c.keyBytes]
}

// portableEncodeKey is what a Go programmer writes: the standard encoder's EncodeToString.
func portableEncodeKey(raw []byte) string { return base32Lower.EncodeToString(raw) }

// encodeKeyWith (tuned) encodes one key into a new string with `encode`: one allocation and no
// copy, as strings.Builder does it; EncodeToString allocates a buffer and then copies it into
// the string.
func encodeKeyWith(encode func(dst, src []byte)) func(raw []byte) string {
	return func(raw []byte) string {
		encoded := make([]byte, base32Lower.EncodedLen(len(raw)))
		encode(encoded, raw)
		return unsafe.String(unsafe.SliceData(encoded), len(encoded))
	}
}

// ceiling times the two things no implementation can skip, with the same workers and chunks,
// keeping nothing: the kernel's source filling count x bytes, and Base32 encoding count fixed keys.
func (c keygenCase) ceiling(seed uint64) map[string]any {
	buffers := make([][]byte, c.plan.workers)
	sources := make([]keySource, c.plan.workers)
	start := time.Now()
	c.forEachChunk(nil, func(worker, first, end int) {
		if sources[worker] == nil {
			sources[worker] = c.newSource(seed)
		}
		sources[worker](c.chunkBuffer(buffers, worker, end-first), first)
	})
	csprngNs := time.Since(start).Nanoseconds()
	fixedKey := make([]byte, c.keyBytes)
	encoded := make([][]byte, c.plan.workers)
	for w := range encoded {
		encoded[w] = make([]byte, base32Lower.EncodedLen(c.keyBytes))
	}
	start = time.Now()
	c.forEachChunk(nil, func(worker, first, end int) {
		for range end - first {
			c.encodeInto(encoded[worker], fixedKey)
		}
	})
	base32Ns := time.Since(start).Nanoseconds()
	return map[string]any{"ceiling": "csprng+base32", "ceiling_ns": csprngNs + base32Ns,
		"csprng_ns": csprngNs, "base32_ns": base32Ns}
}

// keygenChecksum is the order-free digest of the encoded keys, for both sources.
func keygenChecksum(keys []string) string {
	var sum uint64
	for _, key := range keys {
		sum += fnv1a64(unsafe.Slice(unsafe.StringData(key), len(key)))
	}
	return digestHex(sum)
}
