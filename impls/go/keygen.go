// keygen: strong random keys encoded as lower-case padded Base32, sequentially or by a goroutine pool.
package main

import (
	"crypto/rand"
	"encoding/base32"
	"sync"
)

var base32Lower = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.StdPadding)

// keysPerTask is how many keys a pool worker takes from the channel at once; one key per send
// would make the channel, not the key, the measured cost.
const keysPerTask = 256

var keygenWorkload = &Workload{
	Name:   "keygen",
	Params: []Param{{"count", "2000", false}, {"bytes", "1000", false}, {"source", "strong", false}, {"seed", "", true}},
	Models: []string{"seq", "goroutines"},
	ModelInfo: map[string]Model{
		"seq": {Family: "seq"},
		"goroutines": {Family: "green", Workers: true,
			Note: "a pool of --workers goroutines takes ranges of 256 keys from a channel"},
	},
	Prepare: prepareKeygen,
}

// keySource fills key i's bytes into buf (reused per worker to keep allocation out of the source).
type keySource func(buf []byte, index uint64) []byte

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
	generate := generateKeysSeq
	if args.Model == "goroutines" {
		generate = func(count int, source keySource) []string { return generateKeysPool(count, source, args.Workers) }
	}
	return func(timer *Timer) (Result, error) {
		timer.Start()
		keys := generate(count, source)
		timer.Stop()
		return Result{Items: int64(count), Checksum: keygenChecksum(keys, seeded)}, nil
	}, nil
}

func keygenSource(args *Args, keyBytes int) (keySource, bool, error) {
	switch args.String("source") {
	case "strong":
		return func(buf []byte, _ uint64) []byte {
			if cap(buf) < keyBytes {
				buf = make([]byte, keyBytes)
			}
			buf = buf[:keyBytes]
			rand.Read(buf) // never fails since Go 1.24: it crashes the program instead
			return buf
		}, false, nil
	case "seeded":
		seed, err := args.Uint64("seed")
		if err != nil {
			return nil, false, usagef("--source seeded needs --seed S (a non-negative integer)")
		}
		return func(buf []byte, index uint64) []byte {
			return splitmix64Bytes(buf[:0], seed, index, keyBytes)
		}, true, nil
	default:
		return nil, false, usagef("unknown --source %q for keygen; valid: strong, seeded", args.String("source"))
	}
}

func generateKeysSeq(count int, source keySource) []string {
	keys := make([]string, count)
	var buf []byte
	for i := range keys {
		buf = source(buf, uint64(i))
		keys[i] = base32Lower.EncodeToString(buf)
	}
	return keys
}

func generateKeysPool(count int, source keySource, workers int) []string {
	keys := make([]string, count)
	starts := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			var buf []byte
			for start := range starts {
				for i := start; i < min(start+keysPerTask, count); i++ {
					buf = source(buf, uint64(i))
					keys[i] = base32Lower.EncodeToString(buf)
				}
			}
		})
	}
	for start := 0; start < count; start += keysPerTask {
		starts <- start
	}
	close(starts)
	wg.Wait()
	return keys
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
