// The warm start of the `threads` models: worker threads made once and handed one round of work at a time.
#include "worker_pool.hpp"

namespace parbench {

WorkerPool::WorkerPool(int workers) {
  std::unique_lock lock(mutex_);
  busy_workers_ = workers;
  try {
    threads_.reserve(static_cast<std::size_t>(workers));
    for (int w = 0; w < workers; ++w) threads_.emplace_back([this, w] { serve(w); });
  } catch (...) {
    // The threads that exist are ended, so a failed start leaves nothing behind.
    stopping_ = true;
    lock.unlock();
    round_posted_.notify_all();
    for (auto& thread : threads_) thread.join();
    throw;
  }
  // A pool is made when every thread runs: a created thread has not necessarily been scheduled yet.
  round_finished_.wait(lock, [this] { return busy_workers_ == 0; });
}

WorkerPool::~WorkerPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  round_posted_.notify_all();
  for (auto& thread : threads_) thread.join();
}

void WorkerPool::run_round(const std::function<void(int worker)>& task) {
  std::unique_lock lock(mutex_);
  task_ = &task;
  error_ = nullptr;
  busy_workers_ = size();
  ++round_;
  round_posted_.notify_all();
  round_finished_.wait(lock, [this] { return busy_workers_ == 0; });
  task_ = nullptr;
  if (error_) std::rethrow_exception(error_);
}

void WorkerPool::serve(int worker) {
  std::uint64_t done = 0;
  std::unique_lock lock(mutex_);
  for (;;) {
    if (--busy_workers_ == 0) round_finished_.notify_one();
    round_posted_.wait(lock, [&] { return stopping_ || round_ != done; });
    if (stopping_) return;
    done = round_;
    const std::function<void(int)>& task = *task_;
    lock.unlock();
    try {
      task(worker);
    } catch (...) {
      lock.lock();
      if (!error_) error_ = std::current_exception();
      lock.unlock();
    }
    lock.lock();
  }
}

}  // namespace parbench
