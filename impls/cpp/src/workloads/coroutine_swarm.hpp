// coroutine-swarm: many coroutines yielding between fizzbuzz steps: start-up, switches, memory (seed 004).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "protocol.hpp"
#include "shared_fibers.hpp"

namespace parbench::coroutine_swarm {

std::string fizzbuzz(std::int64_t i);
// fnv1a64 of the line "task:step:fizzbuzz(step)".
std::uint64_t line_hash(std::int64_t task, std::int64_t step);

struct Params {
  std::int64_t tasks = 0;
  std::int64_t steps = 0;
  std::int64_t sleep_ms = 0;
  std::int64_t salt = 0;  // task t forms its lines with the id t + salt (the repetition's variant)
};

struct Outcome {
  std::uint64_t digest_sum = 0;  // the order-free digest, before hex
  std::uint64_t spawn_ns = 0;    // until every task exists
  // Steps at which the task running differs from the one that ran the step before (the first
  // step counts nothing): tasks - 1 when the tasks never interleave.
  std::int64_t switches = 0;
  // Protocol 4's proof of interleaving (Tickets): every ticket drawn, and the probe tasks' first
  // and last tickets, [task, first, last] each.
  std::int64_t tickets = 0;
  std::vector<std::array<std::int64_t, 3>> ticket_probes;
};

// Protocol 4's proof of interleaving: every step draws the next ticket, so tickets number the
// steps in the order they ran; about 16 probe tasks, picked by the salt ((task + salt) % stride
// == 0), keep the tickets of their first and last steps. A fetch-add, since fibers-shared steps on
// several threads; the lock is taken once per probe task.
class Tickets {
 public:
  Tickets(std::int64_t tasks, std::int64_t salt) : stride_(std::max<std::int64_t>(1, tasks / 16)), salt_(salt) {}
  std::int64_t draw() { return drawn_.fetch_add(1, std::memory_order_relaxed); }
  void finished(std::int64_t task, std::int64_t first, std::int64_t last) {
    if ((task + salt_) % stride_ != 0) return;
    const std::lock_guard<std::mutex> lock(mutex_);
    probes_.push_back({task, first, last});
  }
  void report(Outcome& outcome) const {
    outcome.tickets = drawn_.load();
    outcome.ticket_probes = probes_;
  }

 private:
  std::int64_t stride_, salt_;
  std::atomic<std::int64_t> drawn_{0};
  std::mutex mutex_;
  std::vector<std::array<std::int64_t, 3>> probes_;
};

// The switch count of protocol 2, for one thread's tasks: prev = last.swap(me); count if it changed.
class SwitchCounter {
 public:
  void step(std::int64_t me) {
    if (last_ != me && last_ != NONE) ++switches_;
    last_ = me;
  }
  std::int64_t switches() const { return switches_; }

 private:
  static constexpr std::int64_t NONE = -1;
  std::int64_t last_ = NONE;
  std::int64_t switches_ = 0;
};

Outcome swarm_seq(const Params& params);
Outcome swarm_coroutines(const Params& params);
Outcome swarm_fibers(const Params& params);
// Boost.Fiber's shared_work scheduler: every task may run on any of `workers` threads (M:N), fresh
// ones made and joined in the call or the `warm` ones; `busy` gets each thread's span of running steps.
Outcome swarm_fibers_shared(const Params& params, int workers, BusyLog* busy = nullptr, SharedFiberThreads* warm = nullptr);

// The ceiling (sleep_ms = 0): one unit of the model's kind yields `yields` times with the
// model's bare yield and forms no lines; returns that time.
std::uint64_t yield_coroutines_ns(std::int64_t yields);
std::uint64_t yield_fibers_ns(std::int64_t yields);
// Cold: on threads made before its clock; warm: on the warm ones.
std::uint64_t yield_fibers_shared_ns(std::int64_t yields, int workers, SharedFiberThreads* warm = nullptr);

WorkloadInfo describe();
void run(const Invocation& call);

}  // namespace parbench::coroutine_swarm
