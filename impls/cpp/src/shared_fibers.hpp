// Runs a body on fresh threads that share Boost.Fiber's shared_work scheduler (M:N fibers).
#pragma once

#include <boost/fiber/all.hpp>
#include <mutex>
#include <thread>
#include <vector>

namespace parbench {

// Which of run_on_shared_fibers' threads this is (coordinator 0, helpers 1..workers-1): the
// worker a fiber's BusyLog entry belongs to at that moment (fibers migrate between them).
inline thread_local int shared_fiber_worker_index = 0;

// Read through a call that is never inlined: a fiber may resume on another thread, and a
// thread-local address computed before it blocked must not be reused after.
[[gnu::noinline]] inline int shared_fiber_worker() {
  asm volatile("" ::: "memory");
  return shared_fiber_worker_index;
}

// shared_work(suspend = true) puts an idle thread to sleep on a condition variable of its own
// scheduler, which only that scheduler's notify() wakes: fibers pushed to the shared queue by
// another thread never wake it, so the helpers slept through the whole run and every fiber ran on
// the coordinator (protocol 2's busy intervals showed one worker). With suspend = false (the
// default, as in Boost's work_sharing example) an idle thread keeps polling the shared queue, so
// every thread runs fibers; the price is that idle helpers spin until the body ends.
constexpr bool SUSPEND_WHEN_IDLE = false;

// `body` runs on a coordinator thread's main fiber; every fiber it launches may run on any of the
// `workers` threads. Fresh threads per call: a thread keeps its scheduling algorithm for life, and
// the caller's thread should stay a plain thread.
template <class Body>
void run_on_shared_fibers(int workers, Body&& body) {
  std::thread coordinator([&] {
    boost::fibers::use_scheduling_algorithm<boost::fibers::algo::shared_work>(SUSPEND_WHEN_IDLE);
    std::mutex mutex;
    boost::fibers::condition_variable_any finished;
    bool done = false;
    std::vector<std::thread> helpers;
    shared_fiber_worker_index = 0;
    for (int w = 1; w < workers; ++w) {
      helpers.emplace_back([&, w] {
        shared_fiber_worker_index = w;
        boost::fibers::use_scheduling_algorithm<boost::fibers::algo::shared_work>(SUSPEND_WHEN_IDLE);
        // While this thread's main fiber waits here, its dispatcher runs fibers from the shared queue.
        std::unique_lock lock(mutex);
        finished.wait(lock, [&] { return done; });
      });
    }
    body();
    {
      std::lock_guard lock(mutex);
      done = true;
    }
    finished.notify_all();
    for (auto& helper : helpers) helper.join();
  });
  coordinator.join();
}

}  // namespace parbench
