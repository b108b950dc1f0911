// The one chunking rule (docs/workloads/README.md), the two ways C++ models hand chunks to workers,
// and where those workers come from in each start mode.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "protocol.hpp"
#include "worker_pool.hpp"

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

// Runs body(w) for every worker w at once: on `workers` fresh std::jthreads started and joined
// here (cold), or on the warm pool's threads (`pool`, of `workers` threads).
template <class Body>
void run_on_workers(int workers, WorkerPool* pool, Body&& body) {
  if (pool) {
    pool->run_round(body);
    return;
  }
  std::vector<std::jthread> threads;
  threads.reserve(static_cast<std::size_t>(workers));
  for (int w = 0; w < workers; ++w) threads.emplace_back([&body, w] { body(w); });
}

// Worker w takes chunk w first (so each worker gets one whenever there are at least `workers`
// chunks), then claims the rest one at a time from a shared counter, so a descheduled thread does
// not hold up the others. The workers are fresh threads, or the warm `pool`'s (run_on_workers).
// `make_worker()` runs on each worker thread and returns its `process(chunk_index)`.
// `busy` (optional) gets worker w's interval from its first chunk's start to its last one's end.
template <class MakeWorker>
ChunkRun run_chunks_on_threads(const ChunkPlan& plan, int workers, MakeWorker&& make_worker, BusyLog* busy = nullptr,
                               WorkerPool* pool = nullptr) {
  WorkerTally tally;
  std::atomic<std::int64_t> next_chunk{workers};
  run_on_workers(workers, pool, [&](int w) {
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
// the next region of the same size. So the team is made once, by this first region before the
// ready line, and every repetition's region runs on it: OpenMP's start is warm by nature.
// Returns the size of the team it got.
inline int start_openmp_team(int workers) {
  // The region only counts its threads: g++ drops an empty parallel region, and the team with it.
  std::atomic<int> started{0};
#pragma omp parallel num_threads(workers)
  started.fetch_add(1, std::memory_order_relaxed);
  return started.load();
}

// OMP_WAIT_POLICY as the process got it: it decides whether idle team threads spin or sleep.
inline std::string openmp_wait_policy() {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  return policy ? policy : "unset";
}

// `#pragma omp for schedule(static, 1)`: chunk c goes to team thread c mod workers, so every
// thread gets one whenever there are at least `workers` chunks. The region runs on libgomp's
// team of `workers` threads (made by start_openmp_team, or by the first region of that size).
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
  return tally.result(plan);
}

// How a chunked model runs its chunks: on the calling thread (seq), on std::threads, or on an
// OpenMP team.
enum class WorkerKind { calling_thread, threads, openmp };
// seq, threads, openmp: the model names of every chunked workload.
WorkerKind worker_kind_named(const std::string& model);

// What --list says each mode of a chunked model makes.
extern const StartOffer THREADS_START;
extern const StartOffer OPENMP_START;

// A chunked model's workers for the whole process: made in every repetition (cold: run() starts
// and joins them) or once, by the constructor, before the ready line (warm: run() hands each
// repetition's chunks to the same threads).
class ChunkWorkers {
 public:
  ChunkWorkers(WorkerKind kind, int workers, StartMode start);

  WorkerKind kind() const { return kind_; }
  int workers() const { return workers_; }
  // The ready line: the mode and, for warm, how long making the workers took.
  Ready ready() const;

  template <class MakeWorker>
  ChunkRun run(const ChunkPlan& plan, MakeWorker&& make_worker, BusyLog* busy = nullptr) const {
    if (kind_ == WorkerKind::threads) return run_chunks_on_threads(plan, workers_, make_worker, busy, pool_.get());
    if (kind_ == WorkerKind::openmp) return run_chunks_openmp(plan, workers_, make_worker, busy);
    return run_chunks_here(plan, make_worker, busy);
  }

 private:
  WorkerKind kind_;
  int workers_;
  StartMode start_;
  std::unique_ptr<WorkerPool> pool_;
  std::uint64_t start_ns_ = 0;
};

// The extra fields every chunked model reports.
inline void report_chunks(Extra& extra, int workers, const ChunkPlan& plan, const ChunkRun& run) {
  extra.push_back({"workers", std::int64_t{workers}});
  extra.push_back({"chunk", plan.chunk});
  extra.push_back({"chunks", run.chunks});
  extra.push_back({"workers_used", std::int64_t{run.workers_used}});
}

}  // namespace parbench
