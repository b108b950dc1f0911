// coroutine-swarm: many coroutines yielding between fizzbuzz steps: start-up, switches, memory (seed 004).
#include "workloads/coroutine_swarm.hpp"

#include <boost/context/stack_traits.hpp>
#include <boost/fiber/all.hpp>
#include <atomic>
#include <charconv>
#include <vector>

#include "coro_scheduler.hpp"
#include "digest.hpp"
#include "registry.hpp"
#include "shared_fibers.hpp"

namespace parbench::coroutine_swarm {

std::string fizzbuzz(std::int64_t i) {
  if (i % 15 == 0) return "FizzBuzz";
  if (i % 5 == 0) return "Buzz";
  if (i % 3 == 0) return "Fizz";
  return std::to_string(i);
}

std::uint64_t line_hash(std::int64_t task, std::int64_t step) {
  // Formed in a stack buffer: the line is the work, an allocation per line would not be.
  char line[80];
  char* end = std::to_chars(line, line + 24, task).ptr;
  *end++ = ':';
  end = std::to_chars(end, end + 24, step).ptr;
  *end++ = ':';
  const char* word = step % 15 == 0 ? "FizzBuzz" : step % 5 == 0 ? "Buzz" : step % 3 == 0 ? "Fizz" : nullptr;
  if (word) {
    while (*word) *end++ = *word++;
  } else {
    end = std::to_chars(end, end + 24, step).ptr;
  }
  return fnv1a64(std::string_view(line, static_cast<std::size_t>(end - line)));
}

Outcome swarm_seq(const Params& params) {
  Outcome outcome;
  SwitchCounter counter;
  for (std::int64_t task = 0; task < params.tasks; ++task) {
    for (std::int64_t step = 0; step < params.steps; ++step) {
      counter.step(task);
      outcome.digest_sum += line_hash(task + params.salt, step);
    }
  }
  outcome.switches = counter.switches();
  return outcome;
}

namespace {

coro::Detached swarm_task(coro::Scheduler& scheduler, const Params& params, std::int64_t task, std::uint64_t& total,
                          SwitchCounter& counter, Tickets& tickets) {
  std::uint64_t sum = 0;
  std::int64_t first = -1, ticket = -1;
  for (std::int64_t step = 0; step < params.steps; ++step) {
    if (params.sleep_ms > 0) co_await coro::sleep_for(scheduler, std::chrono::milliseconds(params.sleep_ms));
    else co_await coro::yield_now(scheduler);
    counter.step(task);
    ticket = tickets.draw();
    if (step == 0) first = ticket;
    sum += line_hash(task + params.salt, step);
  }
  if (params.steps > 0) tickets.finished(task, first, ticket);
  total += sum;
}

}  // namespace

Outcome swarm_coroutines(const Params& params) {
  const std::uint64_t start = monotonic_ns();
  Outcome outcome;
  SwitchCounter counter;  // one thread runs every coroutine: a plain counter
  Tickets tickets(params.tasks, params.salt);
  coro::Scheduler scheduler;
  // Each task runs up to its first yield here, so it exists and waits in the ready queue.
  for (std::int64_t task = 0; task < params.tasks; ++task) {
    swarm_task(scheduler, params, task, outcome.digest_sum, counter, tickets);
  }
  outcome.spawn_ns = monotonic_ns() - start;
  scheduler.run();
  outcome.switches = counter.switches();
  tickets.report(outcome);
  return outcome;
}

Outcome swarm_fibers(const Params& params) {
  const std::uint64_t start = monotonic_ns();
  Outcome outcome;
  SwitchCounter counter;  // every fiber runs on this thread: a plain counter
  Tickets tickets(params.tasks, params.salt);
  std::vector<boost::fibers::fiber> tasks;
  tasks.reserve(static_cast<std::size_t>(params.tasks));
  try {
    for (std::int64_t task = 0; task < params.tasks; ++task) {
      tasks.emplace_back([&params, &outcome, &counter, &tickets, task] {
        std::uint64_t sum = 0;
        std::int64_t first = -1, ticket = -1;
        for (std::int64_t step = 0; step < params.steps; ++step) {
          if (params.sleep_ms > 0) boost::this_fiber::sleep_for(std::chrono::milliseconds(params.sleep_ms));
          else boost::this_fiber::yield();
          counter.step(task);
          ticket = tickets.draw();
          if (step == 0) first = ticket;
          sum += line_hash(task + params.salt, step);
        }
        if (params.steps > 0) tickets.finished(task, first, ticket);
        outcome.digest_sum += sum;  // all fibers share this one thread: no race
      });
    }
  } catch (const std::exception& error) {
    for (auto& fiber : tasks) fiber.join();
    throw LimitReached("boost::fibers::fiber creation failed after " + std::to_string(tasks.size()) + " fibers: " + error.what());
  }
  outcome.spawn_ns = monotonic_ns() - start;
  for (auto& fiber : tasks) fiber.join();
  outcome.switches = counter.switches();
  tickets.report(outcome);
  return outcome;
}

Outcome swarm_fibers_shared(const Params& params, int workers, BusyLog* busy, SharedFiberThreads* warm) {
  const std::uint64_t start = monotonic_ns();  // cold: spawn_ns includes starting the worker threads
  Outcome outcome;
  std::atomic<std::uint64_t> total{0};
  // Tasks step on several threads at once: the protocol's counter as atomics.
  std::atomic<std::int64_t> last{-1}, switches{0};
  Tickets tickets(params.tasks, params.salt);
  run_on_shared_fibers(workers, warm, [&] {
    // A start gate, as Go's swarm has: without it the other threads take each task as it is
    // made and run it to its end while this one is still making the next (at 50 tasks no task
    // overlapped another), so the swarm would not be a swarm.
    boost::fibers::promise<void> gate;
    boost::fibers::shared_future<void> opened = gate.get_future().share();
    std::vector<boost::fibers::fiber> tasks;
    tasks.reserve(static_cast<std::size_t>(params.tasks));
    for (std::int64_t task = 0; task < params.tasks; ++task) {
      tasks.emplace_back([&params, &total, &last, &switches, &tickets, &opened, busy, task] {
        opened.wait();
        std::uint64_t sum = 0;
        std::int64_t first = -1, ticket = -1;
        for (std::int64_t step = 0; step < params.steps; ++step) {
          if (params.sleep_ms > 0) boost::this_fiber::sleep_for(std::chrono::milliseconds(params.sleep_ms));
          else boost::this_fiber::yield();
          const std::uint64_t step_start = busy ? monotonic_ns() : 0;
          const std::int64_t previous = last.exchange(task, std::memory_order_relaxed);
          if (previous != task && previous != -1) switches.fetch_add(1, std::memory_order_relaxed);
          ticket = tickets.draw();
          if (step == 0) first = ticket;
          sum += line_hash(task + params.salt, step);
          if (busy) busy->span(shared_fiber_worker(), step_start, monotonic_ns());
        }
        if (params.steps > 0) tickets.finished(task, first, ticket);
        total.fetch_add(sum, std::memory_order_relaxed);
      });
    }
    outcome.spawn_ns = monotonic_ns() - start;
    gate.set_value();
    for (auto& fiber : tasks) fiber.join();
  });
  outcome.digest_sum = total.load();
  outcome.switches = switches.load();
  tickets.report(outcome);
  return outcome;
}

namespace {

coro::Detached yielder(coro::Scheduler& scheduler, std::int64_t yields) {
  for (std::int64_t k = 0; k < yields; ++k) co_await coro::yield_now(scheduler);
}

// One fiber on the calling thread's scheduler, yielding and joined.
std::uint64_t fiber_yield_ns(std::int64_t yields) {
  return time_ns([yields] {
    boost::fibers::fiber unit([yields] {
      for (std::int64_t k = 0; k < yields; ++k) boost::this_fiber::yield();
    });
    unit.join();
  });
}

}  // namespace

std::uint64_t yield_coroutines_ns(std::int64_t yields) {
  coro::Scheduler scheduler;
  return time_ns([&] {
    yielder(scheduler, yields);
    scheduler.run();
  });
}

std::uint64_t yield_fibers_ns(std::int64_t yields) { return fiber_yield_ns(yields); }

std::uint64_t yield_fibers_shared_ns(std::int64_t yields, int workers, SharedFiberThreads* warm) {
  std::uint64_t ns = 0;
  run_on_shared_fibers(workers, warm, [&] { ns = fiber_yield_ns(yields); });
  return ns;
}

namespace {

std::string probes_json(const std::vector<std::array<std::int64_t, 3>>& probes) {
  std::string json = "[";
  for (const auto& [task, first, last] : probes) {
    json += (json.size() > 1 ? ",[" : "[") + std::to_string(task) + "," + std::to_string(first) + "," + std::to_string(last) + "]";
  }
  return json + "]";
}

}  // namespace

WorkloadInfo describe() {
  const std::string ceiling = "; extra.ceiling_ns (sleep 0): one such unit yielding tasks x steps times";
  return {"coroutine-swarm",
          {"tasks", "steps", "sleep_ms"},
          {{.name = "seq", .family = "seq", .note = "plain nested loop, no yields; refuses --sleep-ms > 0 (it would only sleep)"},
           {.name = "coroutines",
            .family = "async",
            .note = "C++20 stackless coroutines on a single-threaded FIFO scheduler; bare yield = requeue, sleep = timer heap" + ceiling},
           {.name = "fibers",
            .family = "fibers",
            .note = "Boost.Fiber round_robin on one thread, this_fiber::yield / sleep_for, default fixedsize_stack (extra.stack_bytes); "
                    "every fiber joined" + ceiling},
           {.name = "fibers-shared",
            .family = "fibers",
            .workers = true,
            .note = "Boost.Fiber shared_work scheduler over --workers threads (M:N, fibers migrate, idle threads poll the shared queue "
                    "during a repetition), every fiber made behind a start gate (a shared_future) before any steps, "
                    "this_fiber::yield / sleep_for; every fiber made and joined per repetition" + ceiling,
            .start = SHARED_FIBERS_START}}};
}

void run(const Invocation& call) {
  const WorkloadInfo info = describe();
  const ModelInfo& model = require_known_model(call, info);
  call.accept_only(model.workers ? std::vector<std::string>{"tasks", "steps", "sleep_ms", "workers"}
                                 : std::vector<std::string>{"tasks", "steps", "sleep_ms"});
  const StartMode start = start_mode(call, model);
  const int workers = model.workers ? call.workers() : 1;
  Params params{call.integer("tasks"), call.integer("steps"), call.integer_or("sleep_ms", 0), 0};
  if (params.tasks < 0 || params.steps < 0 || params.sleep_ms < 0) throw UsageError("--tasks, --steps and --sleep-ms must be >= 0");
  if (call.model == "seq" && params.sleep_ms > 0) {
    throw UsageError("seq runs the lines in a plain loop and cannot sleep; use --sleep-ms 0 (valid models for sleeps: coroutines, fibers)");
  }
  const SharedFiberWorkers shared(workers, start);

  // Repetition j salts the task ids with its variant.
  run_repetitions(call, shared.ready(), [&](std::uint64_t salt) {
    if (salt > 0xffffffffull) throw UsageError("a coroutine-swarm variant is a salt 0..2^32-1, got " + std::to_string(salt));
    Params salted = params;
    salted.salt = static_cast<std::int64_t>(salt);
    Outcome outcome;
    Repetition repetition;
    BusyLog busy(workers);
    time_region(repetition, [&] {
      if (call.model == "seq") outcome = swarm_seq(salted);
      else if (call.model == "coroutines") outcome = swarm_coroutines(salted);
      else if (call.model == "fibers") outcome = swarm_fibers(salted);
      else outcome = swarm_fibers_shared(salted, workers, &busy, shared.warm());
    });
    if (model.workers) repetition.busy = busy.json(repetition.clock_start);
    repetition.items = static_cast<std::uint64_t>(params.tasks);
    time_checksum(repetition, [&] { return digest_hex(outcome.digest_sum); });
    repetition.extra.push_back({"switches", outcome.switches});
    if (call.model != "seq") {
      repetition.extra.push_back({"tickets", outcome.tickets});
      repetition.extra.push_back({"ticket_probes", RawJson{probes_json(outcome.ticket_probes)}});
    }
    if (call.model != "seq") repetition.extra.push_back({"spawn_ns", static_cast<std::int64_t>(outcome.spawn_ns)});
    if (call.model == "fibers-shared") repetition.extra.push_back({"workers", std::int64_t{workers}});
    if (call.model == "fibers" || call.model == "fibers-shared") {
      repetition.extra.push_back({"stack_bytes", static_cast<std::int64_t>(boost::context::stack_traits::default_size())});
    }
    if (call.model != "seq" && params.sleep_ms == 0) {
      const std::int64_t yields = params.tasks * params.steps;
      const std::uint64_t ceiling_ns = call.model == "coroutines" ? yield_coroutines_ns(yields)
                                       : call.model == "fibers"   ? yield_fibers_ns(yields)
                                                                  : yield_fibers_shared_ns(yields, workers, shared.warm());
      repetition.extra.push_back({"ceiling", std::string("yield")});
      repetition.extra.push_back({"ceiling_ns", static_cast<std::int64_t>(ceiling_ns)});
    }
    return repetition;
  });
}

const WorkloadRegistration registered{describe, run};

}  // namespace parbench::coroutine_swarm
