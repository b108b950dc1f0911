// spawn-chain: n concurrent units in a chain, each adding 1 to what it receives (seed 003).
#pragma once

#include <cstdint>

#include "protocol.hpp"
#include "shared_fibers.hpp"

namespace parbench::spawn_chain {

// What one pass sends in and reports besides the answer.
struct ChainRun {
  std::int64_t start = 0;       // sent into the last link instead of 0 (the repetition's variant)
  std::int64_t live_units = 0;  // units started and not ended when `start` was sent (counted by the units)
  BusyLog* busy = nullptr;      // fibers-shared: each thread's span of running links
};

// Each returns the answer that came back from unit 0 (start + n when every link did its job);
// a unit that cannot be created throws LimitReached after the existing ones are wound down.
std::int64_t chain_threads(std::int64_t n, ChainRun* run = nullptr);
std::int64_t chain_coroutines(std::int64_t n, ChainRun* run = nullptr);
std::int64_t chain_fibers(std::int64_t n, ChainRun* run = nullptr);
// On fresh threads made and joined in the call, or on `warm` ones (of `workers` threads).
std::int64_t chain_fibers_shared(std::int64_t n, int workers, ChainRun* run = nullptr, SharedFiberThreads* warm = nullptr);

// The ceiling: two units of the model's kind, created before the clock, pass a counter back and
// forth with the model's own primitive until it has been handed over n times; returns that time.
std::uint64_t handoff_threads_ns(std::int64_t n);
std::uint64_t handoff_coroutines_ns(std::int64_t n);
std::uint64_t handoff_fibers_ns(std::int64_t n);
// Cold: on threads made before its clock; warm: on the warm ones.
std::uint64_t handoff_fibers_shared_ns(std::int64_t n, int workers, SharedFiberThreads* warm = nullptr);

std::int64_t default_thread_stack_bytes();
std::int64_t default_fiber_stack_bytes();

WorkloadInfo describe();
void run(const Invocation& call);

}  // namespace parbench::spawn_chain
