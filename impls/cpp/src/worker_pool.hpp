// The warm start of the `threads` models: worker threads made once and handed one round of work at a time.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace parbench {

// `workers` std::threads made by the constructor (which returns once every one of them is waiting
// for work) and joined by the destructor. Between rounds they sleep on a condition variable, so a
// warm pool costs no CPU while the process checksums or waits for its next variant.
class WorkerPool {
 public:
  explicit WorkerPool(int workers);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  int size() const { return static_cast<int>(threads_.size()); }
  // Runs task(w) on worker w, for every worker at once, and returns when all of them have finished;
  // the first exception a worker threw is rethrown here.
  void run_round(const std::function<void(int worker)>& task);

 private:
  void serve(int worker);

  std::mutex mutex_;
  std::condition_variable round_posted_;
  std::condition_variable round_finished_;
  const std::function<void(int)>* task_ = nullptr;
  std::uint64_t round_ = 0;
  int busy_workers_ = 0;  // checking in at start, then running the current round
  bool stopping_ = false;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

}  // namespace parbench
