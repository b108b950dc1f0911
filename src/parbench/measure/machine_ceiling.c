/* The machine's ceiling for a workload, measured the same way for every runtime: the cheapest
 * thing any implementation must at least do, in C on this machine. `copy BYTES`: one memcpy of a
 * BYTES buffer into another (both faulted in first), what any S-DES kernel must beat to read and
 * write every byte; `handoff N`: two threads handing a counter back and forth N times through one
 * atomic word (spinning: the cheapest hand-off two cores offer), what a chain of N links must at
 * least pay. Prints the best of five timings in ns. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t copy_once(size_t bytes) {
    static unsigned char *from, *to;
    if (from == NULL) {
        from = malloc(bytes ? bytes : 1);
        to = malloc(bytes ? bytes : 1);
        if (from == NULL || to == NULL) { perror("machine_ceiling"); exit(1); }
        memset(from, 7, bytes);
        memset(to, 0, bytes);
    }
    uint64_t start = now_ns();
    memcpy(to, from, bytes);
    uint64_t spent = now_ns() - start;
    if (bytes && to[bytes / 2] != 7) exit(2);
    return spent;
}

static _Atomic uint64_t baton;
static uint64_t handoffs;

static void *partner(void *arg) {
    (void)arg;
    for (uint64_t want = 1; want < handoffs; want += 2) {
        while (atomic_load_explicit(&baton, memory_order_acquire) != want) {}
        atomic_store_explicit(&baton, want + 1, memory_order_release);
    }
    return NULL;
}

static uint64_t handoff_once(uint64_t n) {
    pthread_t other;
    handoffs = n;
    atomic_store(&baton, 0);
    pthread_create(&other, NULL, partner, NULL);
    uint64_t start = now_ns();
    for (uint64_t want = 0; want < n; want += 2) {
        while (atomic_load_explicit(&baton, memory_order_acquire) != want) {}
        atomic_store_explicit(&baton, want + 1, memory_order_release);
    }
    while (atomic_load_explicit(&baton, memory_order_acquire) < n) {}
    uint64_t spent = now_ns() - start;
    pthread_join(other, NULL);
    return spent;
}

int main(int argc, char **argv) {
    int copy = argc == 3 && strcmp(argv[1], "copy") == 0, handoff = argc == 3 && strcmp(argv[1], "handoff") == 0;
    if (!copy && !handoff) { fprintf(stderr, "usage: machine_ceiling copy BYTES | handoff N\n"); return 2; }
    uint64_t amount = strtoull(argv[2], NULL, 10), best = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t spent = copy ? copy_once(amount) : handoff_once(amount);
        if (spent < best) best = spent;
    }
    printf("%llu\n", (unsigned long long)best);
    return 0;
}
