// spawn-chain against workloads/spawn-chain.md: the answer that comes back is n, for every unit kind.
#include <gtest/gtest.h>

#include "os_threads.hpp"
#include "workloads/spawn_chain.hpp"

using namespace parbench::spawn_chain;

TEST(SpawnChain, OneLinkAnswersOne) {
  EXPECT_EQ(chain_threads(1), 1);
  EXPECT_EQ(chain_coroutines(1), 1);
  EXPECT_EQ(chain_fibers(1), 1);
  EXPECT_EQ(chain_fibers_shared(1, 2), 1);
}

TEST(SpawnChain, EveryModelAnswersNForArbitraryN) {
  for (std::int64_t n : {2, 777, 1500}) {
    EXPECT_EQ(chain_threads(n), n);
    EXPECT_EQ(chain_coroutines(n), n);
    EXPECT_EQ(chain_fibers(n), n);
    for (int workers : {1, 2, 3}) EXPECT_EQ(chain_fibers_shared(n, workers), n) << workers;
  }
}

TEST(SpawnChain, CoroutinesReachAHundredThousandLinks) { EXPECT_EQ(chain_coroutines(100000), 100000); }

TEST(SpawnChainCeiling, EveryKindHandsACounterBackAndForth) {
  // Timing cannot be checked; that each relay comes back (no lost wake-up, no deadlock) can.
  for (std::int64_t n : {1, 2, 3, 1000}) {
    EXPECT_GT(handoff_threads_ns(n), 0u) << n;
    EXPECT_GT(handoff_coroutines_ns(n), 0u) << n;
    EXPECT_GT(handoff_fibers_ns(n), 0u) << n;
    EXPECT_GT(handoff_fibers_shared_ns(n, 2), 0u) << n;
  }
}

TEST(SpawnChain, StartValueComesBackPlusN) {
  // docs/protocol.md, "Test vectors of protocol 2": n 1000, start 123456 -> 124456.
  for (int model = 0; model < 4; ++model) {
    ChainRun run{123456, 0, nullptr};
    const std::int64_t answer = model == 0   ? chain_threads(1000, &run)
                                : model == 1 ? chain_coroutines(1000, &run)
                                : model == 2 ? chain_fibers(1000, &run)
                                             : chain_fibers_shared(1000, 2, &run);
    EXPECT_EQ(answer, 124456) << model;
    EXPECT_EQ(run.live_units, 1000) << "every link existed when the start value was sent, model " << model;
  }
}

TEST(SpawnChain, SharedFibersLogWhereTheLinksRan) {
  parbench::BusyLog busy(2);
  const std::uint64_t start = parbench::monotonic_ns();
  ChainRun run{0, 0, &busy};
  EXPECT_EQ(chain_fibers_shared(2000, 2, &run), 2000);
  // Which thread runs the links is the work-sharing scheduler's choice; the ones that ran log.
  const std::string logged = busy.json(start);
  EXPECT_TRUE(logged.rfind("[[0,", 0) == 0 || logged.rfind("[[1,", 0) == 0) << logged;
}

TEST(SpawnChainWarm, SharedFibersRunEveryRepetitionOnTheThreadsMadeBefore) {
  // Protocol 3's warm start: the shared_work threads are made once and each repetition's chain,
  // and its ceiling, run on them; the answers are those of fresh threads.
  const std::size_t threads_before = os_threads();
  parbench::SharedFiberThreads warm(2);
  EXPECT_EQ(os_threads(), threads_before + 2);
  for (std::int64_t start : {0, 123456, 7}) {
    ChainRun run{start, 0, nullptr};
    EXPECT_EQ(chain_fibers_shared(1000, 2, &run, &warm), start + 1000);
    EXPECT_EQ(run.live_units, 1000);
    EXPECT_GT(handoff_fibers_shared_ns(100, 2, &warm), 0u);
    EXPECT_EQ(os_threads(), threads_before + 2) << "a warm repetition made no thread";
  }
}
