// spawn-chain: n concurrent units in a chain, each adding 1 to what it receives (seed 003).
#include "workloads/spawn_chain.hpp"

#include <pthread.h>

#include <boost/context/stack_traits.hpp>
#include <boost/fiber/all.hpp>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "coro_scheduler.hpp"
#include "registry.hpp"
#include "shared_fibers.hpp"

namespace parbench::spawn_chain {

namespace {

// An OS thread's inbox: it blocks in take() until another thread puts a value, and takes it out.
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
    return *std::exchange(value_, std::nullopt);
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::optional<std::int64_t> value_;
};

}  // namespace

std::int64_t chain_threads(std::int64_t n, ChainRun* run) {
  ChainRun local;
  ChainRun& chain = run ? *run : local;
  // inboxes[0] is the caller's; link k reads inboxes[k + 1] and writes inboxes[k].
  auto inboxes = std::make_unique<Mailbox[]>(static_cast<std::size_t>(n) + 1);
  std::vector<std::thread> links;
  links.reserve(static_cast<std::size_t>(n));
  std::atomic<std::int64_t> live{0};
  std::string failure;
  try {
    for (std::int64_t k = 0; k < n; ++k) {
      links.emplace_back([&inboxes, &live, k] {
        live.fetch_add(1);
        inboxes[k].put(inboxes[k + 1].take() + 1);
        live.fetch_sub(1);
      });
    }
  } catch (const std::system_error& error) {
    failure = "std::thread creation failed after " + std::to_string(links.size()) + " threads: " + error.what();
  }
  // A created thread may not have run yet: the chain exists once every link is running (and
  // waiting on its inbox), so wait for that before sending.
  const auto created = static_cast<std::int64_t>(links.size());
  while (live.load() < created) std::this_thread::yield();
  chain.live_units = live.load();
  // On failure the pass still runs through the links that exist, so they end and can be joined.
  inboxes[links.size()].put(chain.start);
  const std::int64_t answer = inboxes[0].take();
  for (auto& link : links) link.join();
  if (!failure.empty()) throw LimitReached(failure);
  return answer;
}

namespace {

coro::Detached coroutine_link(coro::Scheduler& scheduler, coro::Mailbox<std::int64_t>& inbox,
                              coro::Mailbox<std::int64_t>& next, std::int64_t& live) {
  ++live;  // one thread runs every coroutine: a plain counter
  const std::int64_t value = co_await inbox.receive();
  next.send(value + 1, scheduler);
  --live;
}

}  // namespace

std::int64_t chain_coroutines(std::int64_t n, ChainRun* run) {
  ChainRun local;
  ChainRun& chain = run ? *run : local;
  std::int64_t live = 0;
  coro::Scheduler scheduler;
  std::vector<coro::Mailbox<std::int64_t>> inboxes(static_cast<std::size_t>(n) + 1);
  std::int64_t created = 0;
  std::string failure;
  try {
    for (; created < n; ++created) coroutine_link(scheduler, inboxes[created + 1], inboxes[created], live);
  } catch (const std::bad_alloc& error) {
    failure = "coroutine frame allocation failed after " + std::to_string(created) + " coroutines: " + error.what();
  }
  // Each link ran to its first co_await when it was created.
  chain.live_units = live;
  inboxes[created].send(chain.start, scheduler);
  scheduler.run();
  if (!failure.empty()) throw LimitReached(failure);
  return inboxes[0].value();
}

namespace {

// The fiber chain on whatever scheduler the calling thread uses; `shared`: on run_on_shared_fibers'
// threads, which then log their busy spans.
std::int64_t fiber_chain(std::int64_t n, ChainRun& chain, bool shared) {
  using Channel = boost::fibers::unbuffered_channel<std::int64_t>;
  std::vector<std::unique_ptr<Channel>> inboxes;
  inboxes.reserve(static_cast<std::size_t>(n) + 1);
  std::vector<boost::fibers::fiber> links;
  links.reserve(static_cast<std::size_t>(n));
  std::atomic<std::int64_t> live{0};
  BusyLog* busy = shared ? chain.busy : nullptr;
  std::string failure;
  try {
    inboxes.push_back(std::make_unique<Channel>());
    for (std::int64_t k = 0; k < n; ++k) {
      inboxes.push_back(std::make_unique<Channel>());
      links.emplace_back([&inboxes, &live, busy, k] {
        if (busy) busy->touch(shared_fiber_worker(), monotonic_ns());
        live.fetch_add(1, std::memory_order_relaxed);
        inboxes[k]->push(inboxes[k + 1]->value_pop() + 1);
        live.fetch_sub(1, std::memory_order_relaxed);
        if (busy) busy->touch(shared_fiber_worker(), monotonic_ns());
      });
    }
  } catch (const std::exception& error) {
    failure = "boost::fibers::fiber creation failed after " + std::to_string(links.size()) + " fibers: " + error.what();
  }
  // A new fiber has not run yet: the main fiber yields until every link runs and waits on its
  // channel (one yield on round_robin; on shared_work until the other threads got theirs going).
  const auto created = static_cast<std::int64_t>(links.size());
  while (live.load() < created) boost::this_fiber::yield();
  chain.live_units = live.load();
  // On failure the existing ones still finish.
  inboxes[links.size()]->push(chain.start);
  const std::int64_t answer = inboxes[0]->value_pop();
  for (auto& link : links) link.join();
  if (!failure.empty()) throw LimitReached(failure);
  return answer;
}

}  // namespace

std::int64_t chain_fibers(std::int64_t n, ChainRun* run) {
  ChainRun local;
  return fiber_chain(n, run ? *run : local, false);
}

std::int64_t chain_fibers_shared(std::int64_t n, int workers, ChainRun* run, SharedFiberThreads* warm) {
  ChainRun local;
  ChainRun& chain = run ? *run : local;
  std::int64_t answer = 0;
  std::exception_ptr limit;
  run_on_shared_fibers(workers, warm, [&] {
    try {
      answer = fiber_chain(n, chain, true);
    } catch (...) {
      limit = std::current_exception();
    }
  });
  if (limit) std::rethrow_exception(limit);
  return answer;
}

// --- the hand-off ceiling ---------------------------------------------------------------------
// In every kind: unit A receives 0 from the caller; a unit that receives v < n hands v + 1 to the
// other; the one that receives n (the n-th hand-off between the two) tells the caller and both stop.

std::uint64_t handoff_threads_ns(std::int64_t n) {
  Mailbox to_first, to_second, done;
  auto relay = [n, &done](Mailbox& inbox, Mailbox& outbox) {
    for (;;) {
      const std::int64_t value = inbox.take();
      if (value >= n) {
        if (value == n) done.put(value);
        outbox.put(n + 1);  // stops the other one
        return;
      }
      outbox.put(value + 1);
    }
  };
  std::thread first([&] { relay(to_first, to_second); });
  std::thread second([&] { relay(to_second, to_first); });
  const std::uint64_t ns = time_ns([&] {
    to_first.put(0);
    done.take();
  });
  first.join();
  second.join();
  return ns;
}

namespace {

coro::Detached coroutine_relay(coro::Scheduler& scheduler, std::int64_t n, coro::Mailbox<std::int64_t>& inbox,
                               coro::Mailbox<std::int64_t>& outbox) {
  for (;;) {
    const std::int64_t value = co_await inbox.receive();
    if (value >= n) {
      outbox.send(n + 1, scheduler);
      co_return;
    }
    outbox.send(value + 1, scheduler);
  }
}

// On whatever fiber scheduler the calling thread uses.
std::uint64_t fiber_handoff_ns(std::int64_t n) {
  using Channel = boost::fibers::unbuffered_channel<std::int64_t>;
  Channel to_first, to_second, done;
  auto relay = [n, &done](Channel& inbox, Channel& outbox) {
    std::int64_t value = 0;
    while (inbox.pop(value) == boost::fibers::channel_op_status::success) {
      if (value == n) {
        done.push(value);
        break;
      }
      outbox.push(value + 1);
    }
    outbox.close();  // stops the other one
  };
  boost::fibers::fiber first([&] { relay(to_first, to_second); });
  boost::fibers::fiber second([&] { relay(to_second, to_first); });
  const std::uint64_t ns = time_ns([&] {
    to_first.push(0);
    done.value_pop();
  });
  first.join();
  second.join();
  return ns;
}

}  // namespace

std::uint64_t handoff_coroutines_ns(std::int64_t n) {
  coro::Scheduler scheduler;
  coro::Mailbox<std::int64_t> to_first, to_second;
  // Each runs to its first receive and waits there: created before the clock.
  coroutine_relay(scheduler, n, to_first, to_second);
  coroutine_relay(scheduler, n, to_second, to_first);
  return time_ns([&] {
    to_first.send(0, scheduler);
    scheduler.run();  // returns once both have stopped
  });
}

std::uint64_t handoff_fibers_ns(std::int64_t n) { return fiber_handoff_ns(n); }

std::uint64_t handoff_fibers_shared_ns(std::int64_t n, int workers, SharedFiberThreads* warm) {
  std::uint64_t ns = 0;
  run_on_shared_fibers(workers, warm, [&] { ns = fiber_handoff_ns(n); });
  return ns;
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
  const std::string ceiling = "; extra.ceiling_ns: two such units pass a counter n times";
  return {"spawn-chain",
          {"n"},
          {{.name = "threads",
            .family = "threads",
            .note = "one std::thread per link, mutex + condition_variable inbox, every link joined inside the timed region; default "
                    "pthread stack (ulimit -s), recorded as extra.stack_bytes" + ceiling},
           {.name = "coroutines",
            .family = "async",
            .note = "one C++20 stackless coroutine per link with a one-value mailbox, on a single-threaded FIFO scheduler; every "
                    "link has returned (its frame freed) before the clock stops" + ceiling},
           {.name = "fibers",
            .family = "fibers",
            .note = "one Boost.Fiber per link with an unbuffered_channel (as skynet), round_robin scheduler on one thread, every "
                    "fiber joined; default fixedsize_stack (extra.stack_bytes)" + ceiling},
           {.name = "fibers-shared",
            .family = "fibers",
            .workers = true,
            .note = "the same fiber chain on Boost.Fiber's shared_work scheduler over --workers threads (M:N, like goroutines with "
                    "GOMAXPROCS=workers; idle threads poll the shared queue during a repetition); every fiber made and joined "
                    "per repetition" + ceiling,
            .start = SHARED_FIBERS_START}}};
}

void run(const Invocation& call) {
  const WorkloadInfo info = describe();
  const ModelInfo& model = require_known_model(call, info);
  call.accept_only(model.workers ? std::vector<std::string>{"n", "workers"} : std::vector<std::string>{"n"});
  const StartMode start = start_mode(call, model);
  const int workers = model.workers ? call.workers() : 1;
  const std::int64_t n = call.integer("n");
  if (n < 1) throw UsageError("--n must be >= 1");
  Extra extra;
  if (call.model == "threads") extra.push_back({"stack_bytes", default_thread_stack_bytes()});
  if (call.model == "fibers-shared") extra.push_back({"workers", std::int64_t{workers}});
  if (call.model == "fibers" || call.model == "fibers-shared") extra.push_back({"stack_bytes", default_fiber_stack_bytes()});
  const SharedFiberWorkers shared(workers, start);

  auto handoff_ns = [&] {
    if (call.model == "threads") return handoff_threads_ns(n);
    if (call.model == "coroutines") return handoff_coroutines_ns(n);
    if (call.model == "fibers") return handoff_fibers_ns(n);
    return handoff_fibers_shared_ns(n, workers, shared.warm());
  };

  // Repetition j sends its variant into the chain.
  run_repetitions(call, shared.ready(), [&](std::uint64_t variant) {
    if (variant > 0x7fffffffull) throw UsageError("a spawn-chain variant is a start value 0..2^31-1, got " + std::to_string(variant));
    const auto start_value = static_cast<std::int64_t>(variant);
    std::int64_t answer = 0;
    Repetition repetition;
    BusyLog busy(workers);
    ChainRun chain{start_value, 0, &busy};
    // Every link is joined (threads, fibers) or has returned (coroutines) before the clock stops.
    time_region(repetition, [&] {
      if (call.model == "threads") answer = chain_threads(n, &chain);
      else if (call.model == "coroutines") answer = chain_coroutines(n, &chain);
      else if (call.model == "fibers") answer = chain_fibers(n, &chain);
      else answer = chain_fibers_shared(n, workers, &chain, shared.warm());
    });
    if (model.workers) repetition.busy = busy.json(repetition.clock_start);
    repetition.items = static_cast<std::uint64_t>(n);
    time_checksum(repetition, [&] { return std::to_string(answer); });
    repetition.extra = extra;
    repetition.extra.push_back({"live_units", chain.live_units});
    repetition.extra.push_back({"ceiling", std::string("hand-off")});
    repetition.extra.push_back({"ceiling_ns", static_cast<std::int64_t>(handoff_ns())});
    return repetition;
  });
}

const WorkloadRegistration registered{describe, run};

}  // namespace parbench::spawn_chain
