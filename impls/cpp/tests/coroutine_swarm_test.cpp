// coroutine-swarm against workloads/coroutine-swarm.md: fizzbuzz, the tasks-3 vector, models agreeing.
#include <gtest/gtest.h>

#include <algorithm>

#include "digest.hpp"
#include "os_threads.hpp"
#include "workloads/coroutine_swarm.hpp"

using namespace parbench::coroutine_swarm;

TEST(Fizzbuzz, MultipleOf15IsFizzBuzz) {
  EXPECT_EQ(fizzbuzz(0), "FizzBuzz");
  EXPECT_EQ(fizzbuzz(30), "FizzBuzz");
}
TEST(Fizzbuzz, MultipleOf5IsBuzz) { EXPECT_EQ(fizzbuzz(10), "Buzz"); }
TEST(Fizzbuzz, MultipleOf3IsFizz) { EXPECT_EQ(fizzbuzz(9), "Fizz"); }
TEST(Fizzbuzz, OtherwiseTheDecimal) { EXPECT_EQ(fizzbuzz(7), "7"); }

TEST(CoroutineSwarm, LineIsTaskStepFizzbuzz) {
  EXPECT_EQ(line_hash(0, 0), parbench::fnv1a64("0:0:FizzBuzz"));
  EXPECT_EQ(line_hash(12, 7), parbench::fnv1a64("12:7:7"));
}

TEST(CoroutineSwarm, Tasks3Steps10) {
  EXPECT_EQ(parbench::digest_hex(swarm_seq({3, 10, 0}).digest_sum), "1161d008ce58dc37");
  EXPECT_EQ(parbench::digest_hex(swarm_coroutines({3, 10, 0}).digest_sum), "1161d008ce58dc37");
  EXPECT_EQ(parbench::digest_hex(swarm_fibers({3, 10, 0}).digest_sum), "1161d008ce58dc37");
  EXPECT_EQ(parbench::digest_hex(swarm_fibers_shared({3, 10, 0}, 2).digest_sum), "1161d008ce58dc37");
}

TEST(CoroutineSwarm, SaltedTasks3Steps10) {
  // docs/protocol.md, "Test vectors of protocol 2".
  const std::pair<std::int64_t, const char*> vectors[] = {
      {0, "1161d008ce58dc37"}, {1000, "bb33744708f665dd"}, {4294967295, "2540eadf7cfb00ad"}};
  for (const auto& [salt, digest] : vectors) {
    const Params params{3, 10, 0, salt};
    EXPECT_EQ(parbench::digest_hex(swarm_seq(params).digest_sum), digest) << salt;
    EXPECT_EQ(parbench::digest_hex(swarm_coroutines(params).digest_sum), digest) << salt;
    EXPECT_EQ(parbench::digest_hex(swarm_fibers(params).digest_sum), digest) << salt;
    EXPECT_EQ(parbench::digest_hex(swarm_fibers_shared(params, 2).digest_sum), digest) << salt;
  }
}

TEST(CoroutineSwarm, SwitchesCountInterleaving) {
  const Params params{50, 10, 0, 0};
  EXPECT_EQ(swarm_seq(params).switches, 49);  // never interleaves: tasks - 1
  // Round-robin over 50 ready tasks: every step but the very first follows another task's.
  EXPECT_EQ(swarm_coroutines(params).switches, 50 * 10 - 1);
  EXPECT_EQ(swarm_fibers(params).switches, 50 * 10 - 1);
  EXPECT_GT(swarm_fibers_shared(params, 2).switches, 49);
}

// Protocol 4's proof of interleaving: 40 tasks x 5 steps under salt 3 draw 200 tickets, and the
// salt's probes are every 40 / 16 = 2nd task from (-3) mod 2 = 1.
void expect_salts_probes(const Outcome& outcome) {
  EXPECT_EQ(outcome.tickets, 200);
  std::vector<std::int64_t> probed;
  for (const auto& probe : outcome.ticket_probes) probed.push_back(probe[0]);
  std::sort(probed.begin(), probed.end());
  std::vector<std::int64_t> expected;
  for (std::int64_t task = 1; task < 40; task += 2) expected.push_back(task);
  EXPECT_EQ(probed, expected);
}

TEST(CoroutineSwarmTickets, RoundRobinGivesTaskTStepSTicketSTimesTasksPlusT) {
  const Params params{40, 5, 0, 3};
  for (const Outcome& outcome : {swarm_coroutines(params), swarm_fibers(params)}) {
    expect_salts_probes(outcome);
    for (const auto& [task, first, last] : outcome.ticket_probes) {
      EXPECT_EQ(first, task);
      EXPECT_EQ(last, 4 * 40 + task);
    }
  }
}

TEST(CoroutineSwarmTickets, SharedFibersProbesOverlap) {
  Outcome outcome = swarm_fibers_shared({40, 5, 0, 3}, 2);
  expect_salts_probes(outcome);
  std::sort(outcome.ticket_probes.begin(), outcome.ticket_probes.end(),
            [](const auto& a, const auto& b) { return a[1] < b[1]; });
  bool overlap = false;
  for (std::size_t i = 1; i < outcome.ticket_probes.size(); ++i) {
    overlap = overlap || outcome.ticket_probes[i][1] < outcome.ticket_probes[i - 1][2];
  }
  EXPECT_TRUE(overlap);
}

TEST(CoroutineSwarm, SharedFibersLogBusyIntervals) {
  parbench::BusyLog busy(2);
  const std::uint64_t start = parbench::monotonic_ns();
  swarm_fibers_shared({200, 10, 0, 0}, 2, &busy);
  // Which of the two threads runs the fibers is the work-sharing scheduler's choice (at 200
  // tasks one may take them all); what must hold is that the threads that ran log intervals.
  const std::string logged = busy.json(start);
  EXPECT_TRUE(logged.rfind("[[0,", 0) == 0 || logged.rfind("[[1,", 0) == 0) << logged;
}

TEST(CoroutineSwarm, EveryModelAgreesForArbitraryParams) {
  for (const Params& params : {Params{301, 7, 0}, Params{1000, 3, 0}, Params{17, 31, 0}}) {
    const auto expected = swarm_seq(params).digest_sum;
    EXPECT_EQ(swarm_coroutines(params).digest_sum, expected);
    EXPECT_EQ(swarm_fibers(params).digest_sum, expected);
    for (int workers : {1, 2, 3}) EXPECT_EQ(swarm_fibers_shared(params, workers).digest_sum, expected) << workers;
  }
}

TEST(CoroutineSwarm, SleepingTasksOverlapTheirSleeps) {
  // 50 tasks x 3 steps x 20 ms: concurrent sleeps take about 60 ms, sequential ones 3 s.
  const Params params{50, 3, 20};
  const auto expected = swarm_seq({50, 3, 0}).digest_sum;
  auto shared_on_two = [](const Params& p) { return swarm_fibers_shared(p, 2); };
  for (auto model : std::initializer_list<Outcome (*)(const Params&)>{swarm_coroutines, swarm_fibers, shared_on_two}) {
    const std::uint64_t start = parbench::monotonic_ns();
    EXPECT_EQ(model(params).digest_sum, expected);
    const std::uint64_t elapsed = parbench::monotonic_ns() - start;
    EXPECT_GE(elapsed, 60'000'000u);
    EXPECT_LT(elapsed, 1'500'000'000u);
  }
}

TEST(CoroutineSwarmCeiling, OneUnitOfEveryKindYieldsAndFinishes) {
  for (std::int64_t yields : {0, 1, 1000}) {
    EXPECT_GT(yield_coroutines_ns(yields), 0u);
    EXPECT_GT(yield_fibers_ns(yields), 0u);
    EXPECT_GT(yield_fibers_shared_ns(yields, 2), 0u);
  }
}

TEST(CoroutineSwarmWarm, SharedFibersRunEveryRepetitionOnTheThreadsMadeBefore) {
  // Protocol 3's warm start: the same threads for every repetition, the same digests as seq.
  const std::size_t threads_before = os_threads();
  parbench::SharedFiberThreads warm(2);
  EXPECT_EQ(os_threads(), threads_before + 2);
  for (const Params& params : {Params{301, 7, 0, 0}, Params{3, 10, 0, 1000}, Params{50, 3, 5, 0}}) {
    EXPECT_EQ(swarm_fibers_shared(params, 2, nullptr, &warm).digest_sum, swarm_seq({params.tasks, params.steps, 0, params.salt}).digest_sum);
    EXPECT_GT(yield_fibers_shared_ns(100, 2, &warm), 0u);
    EXPECT_EQ(os_threads(), threads_before + 2) << "a warm repetition made no thread";
  }
}
