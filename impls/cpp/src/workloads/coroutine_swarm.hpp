// coroutine-swarm: many coroutines yielding between fizzbuzz steps: start-up, switches, memory (seed 004).
#pragma once

#include <cstdint>
#include <string>

#include "protocol.hpp"

namespace parbench::coroutine_swarm {

std::string fizzbuzz(std::int64_t i);
// fnv1a64 of the line "task:step:fizzbuzz(step)".
std::uint64_t line_hash(std::int64_t task, std::int64_t step);

struct Params {
  std::int64_t tasks = 0;
  std::int64_t steps = 0;
  std::int64_t sleep_ms = 0;
};

struct Outcome {
  std::uint64_t digest_sum = 0;  // the order-free digest, before hex
  std::uint64_t spawn_ns = 0;    // until every task exists
};

Outcome swarm_seq(const Params& params);
Outcome swarm_coroutines(const Params& params);
Outcome swarm_fibers(const Params& params);
// Boost.Fiber's shared_work scheduler: every task may run on any of `workers` threads (M:N).
Outcome swarm_fibers_shared(const Params& params, int workers);

// The ceiling (sleep_ms = 0): one unit of the model's kind yields `yields` times with the
// model's bare yield and forms no lines; returns that time.
std::uint64_t yield_coroutines_ns(std::int64_t yields);
std::uint64_t yield_fibers_ns(std::int64_t yields);
std::uint64_t yield_fibers_shared_ns(std::int64_t yields, int workers);

WorkloadInfo describe();
void run(const Invocation& call);

}  // namespace parbench::coroutine_swarm
