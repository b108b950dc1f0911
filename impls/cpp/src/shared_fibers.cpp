// The threads behind the fibers-shared models (shared_fibers.hpp).
#include "shared_fibers.hpp"

#include <boost/fiber/all.hpp>

namespace parbench {

namespace {

// shared_work(suspend = true) puts an idle thread to sleep on a condition variable of its own
// scheduler, which only that scheduler's notify() wakes: fibers pushed to the shared queue by
// another thread never wake it, so the helpers slept through the whole run and every fiber ran on
// the coordinator (protocol 2's busy intervals showed one worker). With suspend = false (the
// default, as in Boost's work_sharing example) an idle thread keeps polling the shared queue, so
// every thread runs fibers; the price is that idle helpers spin until the round ends. Between
// rounds they are parked on a std::condition_variable instead, where they cost nothing.
constexpr bool SUSPEND_WHEN_IDLE = false;

void use_shared_work(int worker) {
  shared_fiber_worker_index = worker;
  boost::fibers::use_scheduling_algorithm<boost::fibers::algo::shared_work>(SUSPEND_WHEN_IDLE);
}

}  // namespace

struct SharedFiberThreads::Rounds {
  std::mutex mutex;
  std::condition_variable posted;   // threads parked between rounds (the OS thread blocks)
  std::condition_variable settled;  // the caller: every thread checked in, or left the round
  // Helpers wait here during a round: their main fiber blocks, so their dispatcher runs fibers.
  boost::fibers::condition_variable_any round_over;
  const std::function<void()>* body = nullptr;
  std::uint64_t posted_round = 0;
  std::uint64_t finished_round = 0;  // the last round whose body has returned
  int active = 0;                    // threads still starting, or still in the current round
  bool stopping = false;
  std::exception_ptr error;

  void leave(std::unique_lock<std::mutex>&) {
    if (--active == 0) settled.notify_all();
  }
  // Parks the calling thread until the next round (true) or the end (false); `seen` is its last round.
  bool next_round(std::unique_lock<std::mutex>& lock, std::uint64_t& seen) {
    posted.wait(lock, [&] { return stopping || posted_round != seen; });
    seen = posted_round;
    return !stopping;
  }
};

SharedFiberThreads::SharedFiberThreads(int workers) : workers_(workers), rounds_(std::make_unique<Rounds>()) {
  std::unique_lock lock(rounds_->mutex);
  rounds_->active = workers;
  try {
    threads_.reserve(static_cast<std::size_t>(workers));
    threads_.emplace_back([this] { coordinate(); });
    for (int w = 1; w < workers; ++w) threads_.emplace_back([this, w] { help(w); });
  } catch (...) {
    rounds_->stopping = true;
    lock.unlock();
    rounds_->posted.notify_all();
    for (auto& thread : threads_) thread.join();
    throw;
  }
  // Made means running its scheduler: a created thread has not necessarily been scheduled yet.
  rounds_->settled.wait(lock, [this] { return rounds_->active == 0; });
}

SharedFiberThreads::~SharedFiberThreads() {
  {
    std::lock_guard lock(rounds_->mutex);
    rounds_->stopping = true;
  }
  rounds_->posted.notify_all();
  for (auto& thread : threads_) thread.join();
}

void SharedFiberThreads::run(const std::function<void()>& body) {
  Rounds& rounds = *rounds_;
  std::unique_lock lock(rounds.mutex);
  rounds.body = &body;
  rounds.error = nullptr;
  rounds.active = workers_;
  ++rounds.posted_round;
  rounds.posted.notify_all();
  rounds.settled.wait(lock, [&] { return rounds.active == 0; });
  rounds.body = nullptr;
  if (rounds.error) std::rethrow_exception(rounds.error);
}

void SharedFiberThreads::coordinate() {
  use_shared_work(0);
  Rounds& rounds = *rounds_;
  std::unique_lock lock(rounds.mutex);
  rounds.leave(lock);
  for (std::uint64_t seen = 0; rounds.next_round(lock, seen);) {
    const std::function<void()>& body = *rounds.body;
    lock.unlock();
    try {
      body();
    } catch (...) {
      lock.lock();
      rounds.error = std::current_exception();
      lock.unlock();
    }
    lock.lock();
    rounds.finished_round = seen;
    rounds.round_over.notify_all();
    rounds.leave(lock);
  }
}

void SharedFiberThreads::help(int worker) {
  use_shared_work(worker);
  Rounds& rounds = *rounds_;
  std::unique_lock lock(rounds.mutex);
  rounds.leave(lock);
  for (std::uint64_t seen = 0; rounds.next_round(lock, seen);) {
    rounds.round_over.wait(lock, [&] { return rounds.finished_round == seen; });
    rounds.leave(lock);
  }
}

const StartOffer SHARED_FIBERS_START{
    .cold = "--workers OS threads on Boost.Fiber's shared_work scheduler, made and joined inside each repetition's clock",
    .warm = "--workers OS threads on shared_work, made once before the ready line and parked on a condition variable between "
            "repetitions; each repetition's fibers (made per repetition in both modes) run on them",
};

SharedFiberWorkers::SharedFiberWorkers(int workers, StartMode start) : workers_(workers), start_(start) {
  if (start_ == StartMode::warm) start_ns_ = time_ns([&] { threads_ = std::make_unique<SharedFiberThreads>(workers_); });
}

Ready SharedFiberWorkers::ready() const {
  if (start_ != StartMode::warm) return {start_};
  return {start_, start_ns_, {{"workers", std::int64_t{workers_}}}};
}

}  // namespace parbench
