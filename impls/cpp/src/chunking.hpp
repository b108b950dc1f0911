// The one chunking rule (docs/workloads/README.md) and the two ways C++ models hand chunks to workers.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "protocol.hpp"

namespace parbench {

// chunk = min(cap, ceil(total / workers)), at least 1 so an empty input still has a chunk size.
inline std::int64_t default_chunk(std::int64_t total, int workers, std::int64_t cap) {
  const std::int64_t per_worker = (total + workers - 1) / workers;
  return std::max<std::int64_t>(1, std::min(cap, per_worker));
}

// The chunk a call asks for with --chunk, or the rule's default.
inline std::int64_t chosen_chunk(const Invocation& call, std::int64_t total, int workers, std::int64_t cap) {
  const std::int64_t chunk = call.integer_or("chunk", default_chunk(total, workers, cap));
  if (chunk < 1) throw UsageError("--chunk must be >= 1");
  return chunk;
}

// `total` units cut into `chunks` pieces of `chunk` units (the last one may be shorter).
struct ChunkPlan {
  std::int64_t total;
  std::int64_t chunk;
  std::int64_t chunks;

  ChunkPlan(std::int64_t total_units, std::int64_t chunk_units)
      : total(total_units), chunk(chunk_units), chunks((total_units + chunk_units - 1) / chunk_units) {}
  std::int64_t begin(std::int64_t c) const { return c * chunk; }
  std::int64_t end(std::int64_t c) const { return std::min(total, (c + 1) * chunk); }
};

// What really ran, counted as it ran.
struct ChunkRun {
  std::int64_t chunks = 0;
  int workers_used = 0;  // distinct OS threads that processed at least one chunk
};

// Collects the OS threads that did work, and the first error a worker threw.
class WorkerTally {
 public:
  void record(std::int64_t chunks_done) {
    if (chunks_done == 0) return;
    std::lock_guard lock(mutex_);
    threads_.insert(std::this_thread::get_id());
  }
  void fail(std::exception_ptr error) {
    std::lock_guard lock(mutex_);
    if (!error_) error_ = error;
  }
  ChunkRun result(const ChunkPlan& plan) const {
    if (error_) std::rethrow_exception(error_);
    return {plan.chunks, static_cast<int>(threads_.size())};
  }

 private:
  std::mutex mutex_;
  std::set<std::thread::id> threads_;
  std::exception_ptr error_;
};

// `workers` fresh std::jthreads, started and joined here. Worker w takes chunk w first (so each
// worker gets one whenever there are at least `workers` chunks), then claims the rest one at a
// time from a shared counter, so a descheduled thread does not hold up the others.
// `make_worker()` runs on each worker thread and returns its `process(chunk_index)`.
// `busy` (optional) gets worker w's interval from its first chunk's start to its last one's end.
template <class MakeWorker>
ChunkRun run_chunks_on_threads(const ChunkPlan& plan, int workers, MakeWorker&& make_worker, BusyLog* busy = nullptr) {
  WorkerTally tally;
  std::atomic<std::int64_t> next_chunk{workers};
  {
    std::vector<std::jthread> threads;
    threads.reserve(static_cast<std::size_t>(workers));
    for (int w = 0; w < workers; ++w) {
      threads.emplace_back([&, w] {
        std::int64_t done = 0;
        try {
          auto process = make_worker();
          const std::uint64_t start = monotonic_ns();
          for (std::int64_t c = w; c < plan.chunks; c = next_chunk.fetch_add(1, std::memory_order_relaxed), ++done) {
            process(c);
          }
          if (busy && done > 0) busy->span(w, start, monotonic_ns());
        } catch (...) {
          tally.fail(std::current_exception());
        }
        tally.record(done);
      });
    }
  }
  return tally.result(plan);
}

// The sequential form: every chunk in order on the calling thread, one worker.
template <class MakeWorker>
ChunkRun run_chunks_here(const ChunkPlan& plan, MakeWorker&& make_worker, BusyLog* busy = nullptr) {
  auto process = make_worker();
  const std::uint64_t start = monotonic_ns();
  for (std::int64_t c = 0; c < plan.chunks; ++c) process(c);
  if (busy && plan.chunks > 0) busy->span(0, start, monotonic_ns());
  return {plan.chunks, plan.chunks > 0 ? 1 : 0};
}

// libgomp keeps its team's threads alive after a parallel region (idle in a barrier, spinning
// for a while per OMP_WAIT_POLICY / GOMP_SPINCOUNT, then sleeping on a futex) and reuses them for
// the next region. omp_pause_resource_all(omp_pause_hard) (OpenMP 5.0, in libgomp since GCC 9)
// ends them, so the next repetition's region starts a new team.
inline void end_openmp_team() { omp_pause_resource_all(omp_pause_hard); }

// OMP_WAIT_POLICY as the process got it: it decides whether idle team threads spin or sleep.
inline std::string openmp_wait_policy() {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  return policy ? policy : "unset";
}

// `#pragma omp for schedule(static, 1)`: chunk c goes to team thread c mod workers, so every
// thread gets one whenever there are at least `workers` chunks. The team is started by the
// parallel region and ended before this returns.
// `busy` as in run_chunks_on_threads, worker = omp_get_thread_num().
template <class MakeWorker>
ChunkRun run_chunks_openmp(const ChunkPlan& plan, int workers, MakeWorker&& make_worker, BusyLog* busy = nullptr) {
  WorkerTally tally;
#pragma omp parallel num_threads(workers)
  {
    // Every team thread must reach the `omp for` (it ends in a barrier), even one whose set-up
    // failed; and no exception may leave the region.
    std::optional<decltype(make_worker())> process;
    try {
      process.emplace(make_worker());
    } catch (...) {
      tally.fail(std::current_exception());
    }
    std::int64_t done = 0;
#pragma omp for schedule(static, 1)
    for (std::int64_t c = 0; c < plan.chunks; ++c) {
      if (!process) continue;
      try {
        const std::uint64_t start = monotonic_ns();
        (*process)(c);
        ++done;
        if (busy) busy->span(omp_get_thread_num(), start, monotonic_ns());
      } catch (...) {
        tally.fail(std::current_exception());
      }
    }
    tally.record(done);
  }
  end_openmp_team();
  return tally.result(plan);
}

// The extra fields every chunked model reports.
inline void report_chunks(Extra& extra, int workers, const ChunkPlan& plan, const ChunkRun& run) {
  extra.push_back({"workers", std::int64_t{workers}});
  extra.push_back({"chunk", plan.chunk});
  extra.push_back({"chunks", run.chunks});
  extra.push_back({"workers_used", std::int64_t{run.workers_used}});
}

}  // namespace parbench
