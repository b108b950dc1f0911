/* The drift sentinel: two fixed, deterministic reference loops whose time on an unchanged machine
 * is the same every time, so a change in it is the machine changing under a sitting (another
 * process, a throttled CPU, a noisy neighbour's steal). `cpu`: a single-threaded integer loop
 * (xorshift and multiply, no memory traffic). `memory`: a streaming read-modify-write over a
 * buffer far larger than any cache. Each loop is timed `repetitions` times (default 5),
 * alternating, and the median is printed: one pass of the memory loop lasts ~6 ms, so a single
 * interruption (a timer tick, a page reclaimed by the kernel) moved a one-pass reading by 40 %
 * and made a quiet sitting look drifting; the median of five needs three passes disturbed.
 * Prints "cpu_ns memory_ns checksum" on one line. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t cpu_loop(uint64_t rounds) {
    uint64_t x = 0x9e3779b97f4a7c15u, acc = 0;
    for (uint64_t i = 0; i < rounds; i++) {
        x ^= x << 13; x ^= x >> 7; x ^= x << 17;
        acc += x * 0xbf58476d1ce4e5b9u;
    }
    return acc;
}

static uint64_t memory_loop(uint64_t *buffer, size_t words, int passes) {
    uint64_t acc = 0;
    for (int p = 0; p < passes; p++)
        for (size_t i = 0; i < words; i++) { buffer[i] += (uint64_t)p ^ i; acc += buffer[i]; }
    return acc;
}

#define MAX_REPETITIONS 31

static int by_value(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static uint64_t median(uint64_t *values, int count) {
    qsort(values, (size_t)count, sizeof values[0], by_value);
    return values[count / 2];
}

int main(int argc, char **argv) {
    uint64_t rounds = argc > 1 ? strtoull(argv[1], NULL, 10) : 20000000u;
    size_t words = (argc > 2 ? strtoull(argv[2], NULL, 10) : 64u << 20) / 8;
    uint64_t *buffer = calloc(words, 8);
    if (buffer == NULL) { perror("sentinel"); return 1; }
    memory_loop(buffer, words, 1);                 /* fault every page in before the clock */
    int repetitions = argc > 3 ? atoi(argv[3]) : 5;
    if (repetitions < 1 || repetitions > MAX_REPETITIONS) { fprintf(stderr, "sentinel: 1 to 31 repetitions\n"); return 2; }
    uint64_t cpu_ns[MAX_REPETITIONS], memory_ns[MAX_REPETITIONS], checksum = 0;
    for (int r = 0; r < repetitions; r++) {
        uint64_t t0 = now_ns();
        checksum ^= cpu_loop(rounds);
        uint64_t t1 = now_ns();
        checksum ^= memory_loop(buffer, words, 2);
        uint64_t t2 = now_ns();
        cpu_ns[r] = t1 - t0;
        memory_ns[r] = t2 - t1;
    }
    printf("%llu %llu %llx\n", (unsigned long long)median(cpu_ns, repetitions),
           (unsigned long long)median(memory_ns, repetitions), (unsigned long long)checksum);
    free(buffer);
    return 0;
}
