// The chunking rule of docs/workloads/README.md and what the chunked models report about it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <stdexcept>
#include <thread>
#include <vector>

#include "chunking.hpp"

using namespace parbench;

namespace {
Invocation parse(std::vector<const char*> args) {
  args.insert(args.begin(), "run");
  return Invocation::parse(static_cast<int>(args.size()), const_cast<char**>(args.data()));
}

// The threads of this process as the kernel lists them.
std::size_t os_threads() {
  std::size_t count = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) ++count;
  return count;
}

// The count once threads that were joined have left /proc: the kernel wakes a joiner before it
// unlinks the exited task, so for a moment a joined thread is still listed. A thread that is still
// alive never leaves, and the count stays above `before` after the two seconds.
std::size_t os_threads_settled(std::size_t before) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  while (os_threads() > before && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return os_threads();
}

// Each chunk records which chunk it was; the models must cover every chunk exactly once.
template <class Run>
std::vector<int> chunk_visits(const ChunkPlan& plan, Run&& run) {
  std::vector<std::atomic<int>> visits(static_cast<std::size_t>(plan.chunks));
  run([&] { return [&](std::int64_t c) { visits[static_cast<std::size_t>(c)].fetch_add(1); }; });
  std::vector<int> counts;
  for (auto& v : visits) counts.push_back(v.load());
  return counts;
}
}  // namespace

TEST(ChunkRule, Total3Workers2GivesChunk2AndTwoChunks) {
  const ChunkPlan plan(3, default_chunk(3, 2, 1 << 20));
  EXPECT_EQ(plan.chunk, 2);
  EXPECT_EQ(plan.chunks, 2);
  EXPECT_EQ(plan.end(1), 3);
}

TEST(ChunkRule, TenMebibytesOnTwoWorkersGiveOneMebibyteChunksTenOfThem) {
  const std::int64_t total = std::int64_t{10} << 20;
  const ChunkPlan plan(total, default_chunk(total, 2, std::int64_t{1} << 20));
  EXPECT_EQ(plan.chunk, 1 << 20);
  EXPECT_EQ(plan.chunks, 10);
}

TEST(ChunkRule, KeygenCapIs1024Keys) {
  EXPECT_EQ(default_chunk(1'000'000, 2, 1024), 1024);
  EXPECT_EQ(default_chunk(2000, 2, 1024), 1000);
  EXPECT_EQ(default_chunk(2001, 2, 1024), 1001);
}

TEST(ChunkRule, FewerUnitsThanWorkersStillGiveChunksOfOne) {
  EXPECT_EQ(default_chunk(1, 8, 1024), 1);
  EXPECT_EQ(ChunkPlan(0, default_chunk(0, 2, 1024)).chunks, 0);
}

TEST(ChunkRule, ChunkFlagOverridesTheDefault) {
  EXPECT_EQ(chosen_chunk(parse({"sdes-ecb", "--model", "threads", "--chunk", "4096"}), 10 << 20, 2, 1 << 20), 4096);
  EXPECT_EQ(chosen_chunk(parse({"sdes-ecb", "--model", "threads"}), 10 << 20, 2, 1 << 20), 1 << 20);
  EXPECT_THROW(chosen_chunk(parse({"sdes-ecb", "--model", "threads", "--chunk", "0"}), 100, 2, 1 << 20), UsageError);
}

TEST(ChunkedModels, ThreadsVisitEveryChunkOnceAndUseEveryWorker) {
  const ChunkPlan plan(1000, 7);
  ChunkRun ran;
  const auto visits = chunk_visits(plan, [&](auto make) { ran = run_chunks_on_threads(plan, 3, make); });
  EXPECT_EQ(visits, std::vector<int>(static_cast<std::size_t>(plan.chunks), 1));
  EXPECT_EQ(ran.chunks, plan.chunks);
  EXPECT_EQ(ran.workers_used, 3);
}

TEST(ChunkedModels, OpenmpVisitsEveryChunkOnceAndUsesEveryWorker) {
  const ChunkPlan plan(1000, 7);
  ChunkRun ran;
  const auto visits = chunk_visits(plan, [&](auto make) { ran = run_chunks_openmp(plan, 3, make); });
  EXPECT_EQ(visits, std::vector<int>(static_cast<std::size_t>(plan.chunks), 1));
  EXPECT_EQ(ran.workers_used, 3);
}

TEST(ChunkedModels, WorkersBeyondTheChunksAreNotCountedAsUsed) {
  const ChunkPlan plan(2, 1);
  auto nothing = [] { return [](std::int64_t) {}; };
  EXPECT_EQ(run_chunks_on_threads(plan, 4, nothing).workers_used, 2);
  EXPECT_EQ(run_chunks_openmp(plan, 4, nothing).workers_used, 2);
}

TEST(ChunkedModels, AWorkersErrorReachesTheCaller) {
  const ChunkPlan plan(10, 1);
  auto failing = [] { return [](std::int64_t c) { if (c == 5) throw std::runtime_error("chunk 5"); }; };
  EXPECT_THROW(run_chunks_on_threads(plan, 2, failing), std::runtime_error);
  EXPECT_THROW(run_chunks_openmp(plan, 2, failing), std::runtime_error);
}

TEST(ChunkedModels, OpenmpTeamIsEndedAfterTheRegion) {
  omp_pause_resource_all(omp_pause_hard);  // whatever ran before in this process leaves no team
  const auto before = os_threads();
  run_chunks_openmp(ChunkPlan(4, 1), 3, [] { return [](std::int64_t) {}; });
  // libgomp would keep two idle team threads here without the hard pause.
  EXPECT_EQ(os_threads_settled(before), before);
}

TEST(ChunkedModels, ThreadsAreJoinedBeforeTheModelReturns) {
  const auto before = os_threads();
  run_chunks_on_threads(ChunkPlan(4, 1), 3, [] { return [](std::int64_t) {}; });
  EXPECT_EQ(os_threads_settled(before), before);
}

// --- protocol 2 plumbing (protocol.hpp) --------------------------------------------------------

TEST(Protocol2, VariantsAreOnePerRepetitionWarmupsFirst) {
  const Invocation call = parse({"keygen", "--model", "seq", "--warmup", "1", "--repeat", "3", "--variants", "11,12,13,14"});
  EXPECT_EQ(call.variant(0, 5), 11);  // the warm-up
  EXPECT_EQ(call.variant(3, 5), 14);
  const Invocation plain = parse({"keygen", "--model", "seq", "--repeat", "2"});
  EXPECT_EQ(plain.variant(1, 5), 5);  // without --variants: the base value
}

TEST(Protocol2, VariantsOfTheWrongCountOrSignAreUsageErrors) {
  EXPECT_THROW(parse({"keygen", "--model", "seq", "--warmup", "1", "--repeat", "3", "--variants", "1,2,3"}), UsageError);
  EXPECT_THROW(parse({"keygen", "--model", "seq", "--repeat", "1", "--variants", "-4"}), UsageError);
  EXPECT_THROW(parse({"keygen", "--model", "seq", "--repeat", "1", "--variants", "x"}), UsageError);
}

TEST(Protocol2, KernelClassDefaultsToPortableAndRefusesAMissingTuned) {
  const WorkloadInfo with_tuned{"w", {}, {}, "plain", "simd"};
  const WorkloadInfo portable_only{"w", {}, {}, "plain"};
  EXPECT_EQ(kernel_class(parse({"w", "--model", "seq"}), with_tuned), KernelClass::portable);
  EXPECT_EQ(kernel_class(parse({"w", "--model", "seq", "--kernel", "tuned"}), with_tuned), KernelClass::tuned);
  EXPECT_THROW(kernel_class(parse({"w", "--model", "seq", "--kernel", "tuned"}), portable_only), UsageError);
  EXPECT_THROW(kernel_class(parse({"w", "--model", "seq", "--kernel", "fast"}), with_tuned), UsageError);
}

TEST(Protocol2, BusyIntervalsAreRelativeToTheClockStart) {
  BusyLog busy(3);
  busy.span(0, 1100, 1500);
  busy.span(0, 1600, 1900);
  busy.touch(2, 1200);
  busy.touch(2, 1300);
  EXPECT_EQ(busy.json(1000), "[[0,100,900],[2,200,300]]");  // worker 1 had no chunk: no interval
}

TEST(Protocol2, LinesCarryTheProtocolFields) {
  Repetition repetition;
  time_region(repetition, [] {});
  time_checksum(repetition, [] { return std::string("abc"); });
  repetition.cleanup_ns = 7;
  repetition.busy = "[[0,1,2]]";
  const std::string line = repetition_line("warmup", 0, repetition);
  EXPECT_EQ(line.rfind("{\"warmup\":0,", 0), 0u) << line;
  for (const char* field : {"\"cpu_user_ns\":", "\"cpu_sys_ns\":", "\"checksum_ns\":", "\"cleanup_ns\":7", "\"busy\":[[0,1,2]]"}) {
    EXPECT_NE(line.find(field), std::string::npos) << field << " in " << line;
  }
  EXPECT_EQ(line.find("prepare_ns"), std::string::npos) << "nothing was prepared";
}

TEST(Protocol2, ChunkedModelsLogEveryWorkersInterval) {
  const ChunkPlan plan(8, 1);
  auto work = [] { return [](std::int64_t) {}; };
  for (int model = 0; model < 2; ++model) {
    BusyLog busy(2);
    const std::uint64_t start = monotonic_ns();
    if (model == 0) run_chunks_on_threads(plan, 2, work, &busy);
    else run_chunks_openmp(plan, 2, work, &busy);
    const std::string json = busy.json(start);
    EXPECT_EQ(json.rfind("[[0,", 0), 0u) << json;
    EXPECT_NE(json.find("],[1,"), std::string::npos) << json;
  }
}
