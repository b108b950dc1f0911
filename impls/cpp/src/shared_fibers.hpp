// The threads behind the fibers-shared models: Boost.Fiber's shared_work scheduler over a set of OS threads (M:N fibers).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "protocol.hpp"

namespace parbench {

// Which of SharedFiberThreads' threads this is (coordinator 0, helpers 1..workers-1): the worker a
// fiber's BusyLog entry belongs to at that moment (fibers migrate between them).
inline thread_local int shared_fiber_worker_index = 0;

// Read through a call that is never inlined: a fiber may resume on another thread, and a
// thread-local address computed before it blocked must not be reused after.
[[gnu::noinline]] inline int shared_fiber_worker() {
  asm volatile("" ::: "memory");
  return shared_fiber_worker_index;
}

// `workers` OS threads that all schedule fibers with shared_work: a coordinator, whose main fiber
// runs each round's body, and workers - 1 helpers. Made by the constructor (which returns once every
// thread runs its scheduler) and joined by the destructor: the cold start makes a set inside each
// repetition, the warm start one set before the ready line, handed a body per repetition.
// A thread keeps its scheduling algorithm for life, so these are threads of their own and the
// caller's thread stays a plain thread.
class SharedFiberThreads {
 public:
  explicit SharedFiberThreads(int workers);
  ~SharedFiberThreads();
  SharedFiberThreads(const SharedFiberThreads&) = delete;
  SharedFiberThreads& operator=(const SharedFiberThreads&) = delete;

  int size() const { return workers_; }
  // Runs `body` on the coordinator's main fiber; every fiber it launches may run on any of the
  // threads. Returns when the body has returned and every helper has left the round; the body's
  // exception is rethrown here.
  void run(const std::function<void()>& body);

 private:
  struct Rounds;  // the synchronisation, with its Boost.Fiber condition variable
  void coordinate();
  void help(int worker);

  int workers_;
  std::unique_ptr<Rounds> rounds_;
  std::vector<std::thread> threads_;
};

// Runs `body` on the warm threads, or on fresh ones made here and joined before this returns (cold).
template <class Body>
void run_on_shared_fibers(int workers, SharedFiberThreads* warm, Body&& body) {
  if (warm) {
    warm->run(body);
    return;
  }
  SharedFiberThreads fresh(workers);
  fresh.run(body);
}

// What --list says each mode of a fibers-shared model makes.
extern const StartOffer SHARED_FIBERS_START;

// A fibers-shared model's threads for the whole process: made inside each repetition (cold: warm()
// is null) or once, by the constructor, before the ready line (warm). Without workers: nothing.
class SharedFiberWorkers {
 public:
  SharedFiberWorkers(int workers, StartMode start);
  SharedFiberThreads* warm() const { return threads_.get(); }
  Ready ready() const;

 private:
  int workers_;
  StartMode start_;
  std::unique_ptr<SharedFiberThreads> threads_;
  std::uint64_t start_ns_ = 0;
};

}  // namespace parbench
