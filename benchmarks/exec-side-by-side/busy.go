// Go: a goroutine per task on every core; prints the xor of every task's last xorshift64 state.
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
)

func task(seed uint64, steps int) uint64 {
	x := seed*2654435761 + 1
	for i := 0; i < steps; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
	}
	return x
}

func main() {
	tasks, _ := strconv.Atoi(os.Args[1])
	steps, _ := strconv.Atoi(os.Args[2])
	results := make([]uint64, tasks)
	var wg sync.WaitGroup
	for t := 0; t < tasks; t++ {
		wg.Add(1)
		go func(t int) {
			defer wg.Done()
			results[t] = task(uint64(t), steps)
		}(t)
	}
	wg.Wait()
	var sum uint64
	for _, r := range results {
		sum ^= r
	}
	fmt.Println(sum)
}
