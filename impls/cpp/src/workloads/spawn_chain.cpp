// spawn-chain: n concurrent units in a chain, each adding 1 to what it receives (seed 003).
#include "workloads/spawn_chain.hpp"

#include <pthread.h>

#include <boost/context/stack_traits.hpp>
#include <boost/fiber/all.hpp>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include "coro_scheduler.hpp"
#include "shared_fibers.hpp"

namespace parbench::spawn_chain {

namespace {

// An OS thread's inbox: it blocks in take() until its successor in the chain puts a value.
class Mailbox {
 public:
  void put(std::int64_t value) {
    {
      std::lock_guard lock(mutex_);
      value_ = value;
    }
    ready_.notify_one();
  }
  std::int64_t take() {
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [this] { return value_.has_value(); });
    return *value_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::optional<std::int64_t> value_;
};

}  // namespace

std::int64_t chain_threads(std::int64_t n) {
  // inboxes[0] is the caller's; link k reads inboxes[k + 1] and writes inboxes[k].
  auto inboxes = std::make_unique<Mailbox[]>(static_cast<std::size_t>(n) + 1);
  std::vector<std::thread> links;
  links.reserve(static_cast<std::size_t>(n));
  std::string failure;
  try {
    for (std::int64_t k = 0; k < n; ++k) {
      links.emplace_back([&inboxes, k] { inboxes[k].put(inboxes[k + 1].take() + 1); });
    }
  } catch (const std::system_error& error) {
    failure = "std::thread creation failed after " + std::to_string(links.size()) + " threads: " + error.what();
  }
  // On failure the pass still runs through the links that exist, so they end and can be joined.
  inboxes[links.size()].put(0);
  const std::int64_t answer = inboxes[0].take();
  for (auto& link : links) link.join();
  if (!failure.empty()) throw LimitReached(failure);
  return answer;
}

namespace {

coro::Detached coroutine_link(coro::Scheduler& scheduler, coro::Oneshot<std::int64_t>& inbox,
                              coro::Oneshot<std::int64_t>& next) {
  const std::int64_t value = co_await inbox.receive();
  next.send(value + 1, scheduler);
}

}  // namespace

std::int64_t chain_coroutines(std::int64_t n) {
  coro::Scheduler scheduler;
  std::vector<coro::Oneshot<std::int64_t>> inboxes(static_cast<std::size_t>(n) + 1);
  std::int64_t created = 0;
  std::string failure;
  try {
    for (; created < n; ++created) coroutine_link(scheduler, inboxes[created + 1], inboxes[created]);
  } catch (const std::bad_alloc& error) {
    failure = "coroutine frame allocation failed after " + std::to_string(created) + " coroutines: " + error.what();
  }
  inboxes[created].send(0, scheduler);
  scheduler.run();
  if (!failure.empty()) throw LimitReached(failure);
  return inboxes[0].value();
}

namespace {

// The fiber chain on whatever scheduler the calling thread uses.
std::int64_t fiber_chain(std::int64_t n) {
  using Channel = boost::fibers::unbuffered_channel<std::int64_t>;
  std::vector<std::unique_ptr<Channel>> inboxes;
  inboxes.reserve(static_cast<std::size_t>(n) + 1);
  std::vector<boost::fibers::fiber> links;
  links.reserve(static_cast<std::size_t>(n));
  std::string failure;
  try {
    inboxes.push_back(std::make_unique<Channel>());
    for (std::int64_t k = 0; k < n; ++k) {
      inboxes.push_back(std::make_unique<Channel>());
      links.emplace_back([&inboxes, k] { inboxes[k]->push(inboxes[k + 1]->value_pop() + 1); });
    }
  } catch (const std::exception& error) {
    failure = "boost::fibers::fiber creation failed after " + std::to_string(links.size()) + " fibers: " + error.what();
  }
  // The fibers run once the main fiber blocks here; on failure the existing ones still finish.
  inboxes[links.size()]->push(0);
  const std::int64_t answer = inboxes[0]->value_pop();
  for (auto& link : links) link.join();
  if (!failure.empty()) throw LimitReached(failure);
  return answer;
}

}  // namespace

std::int64_t chain_fibers(std::int64_t n) { return fiber_chain(n); }

std::int64_t chain_fibers_shared(std::int64_t n, int workers) {
  std::int64_t answer = 0;
  std::exception_ptr limit;
  run_on_shared_fibers(workers, [&] {
    try {
      answer = fiber_chain(n);
    } catch (...) {
      limit = std::current_exception();
    }
  });
  if (limit) std::rethrow_exception(limit);
  return answer;
}

std::int64_t default_thread_stack_bytes() {
  pthread_attr_t attributes;
  std::size_t size = 0;
  pthread_attr_init(&attributes);
  pthread_attr_getstacksize(&attributes, &size);
  pthread_attr_destroy(&attributes);
  return static_cast<std::int64_t>(size);
}

std::int64_t default_fiber_stack_bytes() {
  return static_cast<std::int64_t>(boost::context::stack_traits::default_size());
}

WorkloadInfo describe() {
  return {"spawn-chain",
          {"n"},
          {{"threads", "threads", false,
            "one std::thread per link, mutex + condition_variable inbox; default pthread stack (ulimit -s), recorded as extra.stack_bytes"},
           {"coroutines", "async", false,
            "one C++20 stackless coroutine per link with a one-shot inbox, on a single-threaded FIFO scheduler"},
           {"fibers", "fibers", false,
            "one Boost.Fiber per link with an unbuffered_channel (as skynet), round_robin scheduler on one thread, default fixedsize_stack (extra.stack_bytes)"},
           {"fibers-shared", "fibers", true,
            "the same fiber chain on Boost.Fiber's shared_work scheduler over --workers threads (M:N, like goroutines with GOMAXPROCS=workers)"}}};
}

void run(const Invocation& call) {
  require_known_model(call, describe());
  call.accept_only(call.model == "fibers-shared" ? std::vector<std::string>{"n", "workers"} : std::vector<std::string>{"n"});
  const int workers = call.model == "fibers-shared" ? call.workers() : 1;
  const std::int64_t n = call.integer("n");
  if (n < 1) throw UsageError("--n must be >= 1");
  Extra extra;
  if (call.model == "threads") extra.push_back({"stack_bytes", default_thread_stack_bytes()});
  if (call.model == "fibers-shared") extra.push_back({"workers", std::int64_t{workers}});
  if (call.model == "fibers" || call.model == "fibers-shared") extra.push_back({"stack_bytes", default_fiber_stack_bytes()});

  run_repetitions(call, [&] {
    std::int64_t answer = 0;
    Repetition repetition;
    repetition.ns = time_ns([&] {
      if (call.model == "threads") answer = chain_threads(n);
      else if (call.model == "coroutines") answer = chain_coroutines(n);
      else if (call.model == "fibers") answer = chain_fibers(n);
      else answer = chain_fibers_shared(n, workers);
    });
    repetition.items = static_cast<std::uint64_t>(n);
    repetition.checksum = std::to_string(answer);
    repetition.extra = extra;
    return repetition;
  });
}

}  // namespace parbench::spawn_chain
