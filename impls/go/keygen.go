// keygen: strong random keys encoded as lower-case padded Base32, sequentially or by a goroutine pool.
package main

import (
	"crypto/rand"
	"encoding/base32"
	"time"
	"unsafe"
)

var base32Lower = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.StdPadding)

// keygenChunkCap is the contract's cap on a parallel chunk: 1024 keys.
const keygenChunkCap = 1024

var keygenWorkload = &Workload{
	Name: "keygen",
	Params: []Param{{"count", "2000", false}, {"bytes", "1000", false}, {"source", "strong", false},
		{"seed", "", true}, {"chunk", "", true}},
	Models: []string{"seq", "goroutines"},
	ModelInfo: map[string]Model{
		"seq": {Family: "seq", Note: "one goroutine, keys in order"},
		"goroutines": {Family: "green", Workers: true,
			Note: "a fixed pool of --workers goroutines; worker w takes chunk w, then claims further chunks from an atomic counter; chunk = min(1024, ceil(count/workers)) keys unless --chunk"},
	},
	Prepare: prepareKeygen,
}

// keySource fills random with the bytes of consecutive keys, the first being key `first`.
type keySource func(random []byte, first int)

// keygenCase is one case's parameters, shared by the work and its ceiling.
type keygenCase struct {
	count, keyBytes int
	source          keySource
	plan            chunkPlan
	parallel        bool
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
	source, seeded, err := keygenSource(args, keyBytes)
	if err != nil {
		return nil, err
	}
	chunkOverride := 0
	if args.String("chunk") != "" {
		if chunkOverride, err = args.Int("chunk"); err != nil || chunkOverride < 1 {
			return nil, usagef("--chunk must be a positive number of keys, got %q", args.String("chunk"))
		}
	}
	c := keygenCase{count: count, keyBytes: keyBytes, source: source, parallel: args.Model == "goroutines"}
	c.plan = planChunks(count, 1, keygenChunkCap, chunkOverride)
	if c.parallel {
		c.plan = planChunks(count, args.Workers, keygenChunkCap, chunkOverride)
	}
	return func(timer *Timer) (Result, error) {
		timer.Start()
		keys, run := c.generate()
		timer.Stop()
		checksum := keygenChecksum(keys, seeded)
		extra := c.ceiling()
		if c.parallel {
			for k, v := range c.plan.extra(run) {
				extra[k] = v
			}
		}
		return Result{Items: int64(count), Checksum: checksum, Extra: extra}, nil
	}, nil
}

// keygenSource is --source: strong reads the whole chunk's bytes with one crypto/rand.Read
// (per key, the call's overhead was a few per cent more); seeded is SplitMix64 key by key.
func keygenSource(args *Args, keyBytes int) (keySource, bool, error) {
	switch args.String("source") {
	case "strong":
		return func(random []byte, _ int) {
			rand.Read(random) // never fails since Go 1.24: it crashes the program instead
		}, false, nil
	case "seeded":
		seed, err := args.Uint64("seed")
		if err != nil {
			return nil, false, usagef("--source seeded needs --seed S (a non-negative integer)")
		}
		return func(random []byte, first int) {
			for k := range len(random) / max(keyBytes, 1) {
				key := random[k*keyBytes : k*keyBytes : (k+1)*keyBytes]
				splitmix64Bytes(key, seed, uint64(first+k), keyBytes) // appends in place
			}
		}, true, nil
	default:
		return nil, false, usagef("unknown --source %q for keygen; valid: strong, seeded", args.String("source"))
	}
}

// forEachChunk runs work over the case's chunks: on the pool for goroutines, inline for seq.
func (c keygenCase) forEachChunk(work func(worker, start, end int)) poolRun {
	if c.parallel {
		return runPool(c.plan, work)
	}
	runInline(c.plan, work)
	return poolRun{chunks: c.plan.chunks(), workersUsed: 1}
}

// generate makes every key into one slice the caller holds. Each worker reuses one buffer for
// its chunk's random bytes; every key is a string of its own.
func (c keygenCase) generate() ([]string, poolRun) {
	keys := make([]string, c.count)
	buffers := make([][]byte, c.plan.workers)
	run := c.forEachChunk(func(worker, start, end int) {
		random := c.chunkBuffer(buffers, worker, end-start)
		c.source(random, start)
		for k := range end - start {
			keys[start+k] = encodeKey(random[k*c.keyBytes : (k+1)*c.keyBytes])
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

// encodeKey encodes one key into a new string: one allocation and no copy, as strings.Builder
// does it; EncodeToString allocates a buffer and then copies it into the string.
func encodeKey(raw []byte) string {
	encoded := make([]byte, base32Lower.EncodedLen(len(raw)))
	base32Lower.Encode(encoded, raw)
	return unsafe.String(unsafe.SliceData(encoded), len(encoded))
}

// ceiling times the two things no implementation can skip, with the same workers and chunks,
// keeping nothing: the source filling count x bytes, and Base32 encoding count fixed keys.
func (c keygenCase) ceiling() map[string]any {
	buffers := make([][]byte, c.plan.workers)
	start := time.Now()
	c.forEachChunk(func(worker, first, end int) {
		c.source(c.chunkBuffer(buffers, worker, end-first), first)
	})
	csprngNs := time.Since(start).Nanoseconds()
	fixedKey := make([]byte, c.keyBytes)
	encoded := make([][]byte, c.plan.workers)
	for w := range encoded {
		encoded[w] = make([]byte, base32Lower.EncodedLen(c.keyBytes))
	}
	start = time.Now()
	c.forEachChunk(func(worker, first, end int) {
		for range end - first {
			base32Lower.Encode(encoded[worker], fixedKey)
		}
	})
	base32Ns := time.Since(start).Nanoseconds()
	return map[string]any{"ceiling": "csprng+base32", "ceiling_ns": csprngNs + base32Ns,
		"csprng_ns": csprngNs, "base32_ns": base32Ns}
}

// keygenChecksum is "<count>:<total chars>" for strong keys, the order-free digest for seeded ones.
func keygenChecksum(keys []string, seeded bool) string {
	if seeded {
		var sum uint64
		for _, key := range keys {
			sum += fnv1a64([]byte(key))
		}
		return digestHex(sum)
	}
	chars := 0
	for _, key := range keys {
		chars += len(key)
	}
	return itoa(len(keys)) + ":" + itoa(chars)
}
