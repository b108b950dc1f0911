// Runs a body on fresh threads that share Boost.Fiber's shared_work scheduler (M:N fibers).
#pragma once

#include <boost/fiber/all.hpp>
#include <mutex>
#include <thread>
#include <vector>

namespace parbench {

// `body` runs on a coordinator thread's main fiber; every fiber it launches may run on any of the
// `workers` threads. Fresh threads per call: a thread keeps its scheduling algorithm for life, and
// the caller's thread should stay a plain thread.
template <class Body>
void run_on_shared_fibers(int workers, Body&& body) {
  std::thread coordinator([&] {
    boost::fibers::use_scheduling_algorithm<boost::fibers::algo::shared_work>(true);
    std::mutex mutex;
    boost::fibers::condition_variable_any finished;
    bool done = false;
    std::vector<std::thread> helpers;
    for (int w = 1; w < workers; ++w) {
      helpers.emplace_back([&] {
        boost::fibers::use_scheduling_algorithm<boost::fibers::algo::shared_work>(true);
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
