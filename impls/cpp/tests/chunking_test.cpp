// The chunking rule of docs/workloads/README.md and what the chunked models report about it.
#include <gtest/gtest.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "chunking.hpp"
#include "os_threads.hpp"
#include "registry.hpp"

using namespace parbench;

namespace {
Invocation parse(std::vector<const char*> args) {
  args.insert(args.begin(), "run");
  return Invocation::parse(static_cast<int>(args.size()), const_cast<char**>(args.data()));
}

// The kernel's id of the calling thread: unlike std::thread::id (a pthread_t, an address the next
// thread may get again), a new thread gets a new id.
long os_thread_id() { return syscall(SYS_gettid); }

// The OS threads that ran the chunks of one run.
std::set<long> threads_that_ran(const ChunkWorkers& workers) {
  std::mutex mutex;
  std::set<long> ids;
  workers.run(ChunkPlan(64, 1), [&] {
    return [&](std::int64_t) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));  // so that every worker gets chunks
      std::lock_guard lock(mutex);
      ids.insert(os_thread_id());
    };
  });
  return ids;
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

TEST(ChunkedModels, ColdThreadsAreJoinedBeforeTheModelReturns) {
  const auto before = os_threads();
  run_chunks_on_threads(ChunkPlan(4, 1), 3, [] { return [](std::int64_t) {}; });
  EXPECT_EQ(os_threads_settled(before), before);
}

TEST(ChunkedModels, ColdThreadsAreNewInEveryRepetition) {
  const ChunkWorkers cold(WorkerKind::threads, 2, StartMode::cold);
  const std::set<long> first = threads_that_ran(cold), second = threads_that_ran(cold);
  EXPECT_EQ(first.size(), 2u);
  for (long id : second) EXPECT_EQ(first.count(id), 0u) << "thread " << id << " ran in both repetitions";
}

// --- the warm start (protocol 3) ----------------------------------------------------------------

TEST(WarmStart, ThreadsAreMadeOnceBeforeTheFirstRepetitionAndReused) {
  const auto before = os_threads();
  {
    const ChunkWorkers warm(WorkerKind::threads, 3, StartMode::warm);
    EXPECT_EQ(os_threads(), before + 3) << "the pool exists before any repetition";
    const std::set<long> first = threads_that_ran(warm);
    EXPECT_EQ(os_threads(), before + 3) << "a repetition made no thread";
    EXPECT_EQ(first.size(), 3u);
    EXPECT_EQ(threads_that_ran(warm), first) << "the second repetition ran on the same threads";
    EXPECT_GT(warm.ready().start_ns, 0u);
  }
  EXPECT_EQ(os_threads_settled(before), before) << "the pool is joined when it is dropped";
}

TEST(WarmStart, OpenmpRegionsRunOnTheTeamMadeBeforeTheFirstRepetition) {
  const ChunkWorkers team(WorkerKind::openmp, 2, StartMode::warm);
  const auto made = os_threads();
  const std::set<long> first = threads_that_ran(team);
  EXPECT_EQ(first.size(), 2u);
  EXPECT_EQ(threads_that_ran(team), first);
  EXPECT_EQ(os_threads(), made) << "a repetition's region made no thread";
}

TEST(WarmStart, PoolRunsEveryWorkerOncePerRoundAndPassesErrorsOn) {
  WorkerPool pool(3);
  std::vector<std::atomic<int>> runs(3);
  for (int round = 0; round < 5; ++round) pool.run_round([&](int w) { runs[static_cast<std::size_t>(w)].fetch_add(1); });
  for (auto& count : runs) EXPECT_EQ(count.load(), 5);
  EXPECT_THROW(pool.run_round([](int w) { if (w == 1) throw std::runtime_error("worker 1"); }), std::runtime_error);
  pool.run_round([&](int w) { runs[static_cast<std::size_t>(w)].fetch_add(1); });  // it still serves after an error
  EXPECT_EQ(runs[2].load(), 6);
}

TEST(WarmStart, ReadyLineSaysTheModeAndForWarmTheStartTime) {
  EXPECT_EQ(ready_line(ChunkWorkers(WorkerKind::calling_thread, 1, StartMode::none).ready()), "{\"ready\":\"none\"}");
  EXPECT_EQ(ready_line(ChunkWorkers(WorkerKind::threads, 2, StartMode::cold).ready()), "{\"ready\":\"cold\"}");
  const ChunkWorkers warm(WorkerKind::threads, 2, StartMode::warm);
  EXPECT_EQ(ready_line(warm.ready()),
            "{\"ready\":\"warm\",\"start_ns\":" + std::to_string(warm.ready().start_ns) + ",\"extra\":{\"workers\":2}}");
}

// --- protocols 3 and 4: variants on stdin until it ends, the start mode (protocol.hpp) -----------

namespace {
// A repetition that only records its variant (and answers it as its checksum).
Repetition recording(std::vector<std::uint64_t>& seen, std::uint64_t variant) {
  seen.push_back(variant);
  Repetition repetition;
  repetition.checksum = std::to_string(variant);
  return repetition;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

const ModelInfo THREADED{.name = "threads", .family = "threads", .workers = true, .start = {.cold = "fresh", .warm = "pool"}};
const ModelInfo WARM_ONLY{
    .name = "team", .family = "data-parallel", .workers = true, .start = {.warm = "team", .cold_unavailable = "kept"}};
const ModelInfo SEQUENTIAL{.name = "seq", .family = "seq"};
}  // namespace

TEST(Protocol3, VariantsAreReadFromStdinOneRepLinePerVariant) {
  const Invocation call = parse({"keygen", "--model", "seq"});
  std::istringstream stdin_lines("11\n12\n13\n");
  std::ostringstream stdout_lines;
  std::vector<std::uint64_t> seen;
  run_repetitions(call, Ready{}, [&](std::uint64_t variant) { return recording(seen, variant); }, stdin_lines, stdout_lines);
  EXPECT_EQ(seen, (std::vector<std::uint64_t>{11, 12, 13}));
  const auto lines = lines_of(stdout_lines.str());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], "{\"ready\":\"none\"}") << "the ready line comes first";
  EXPECT_EQ(lines[1].rfind("{\"rep\":0,", 0), 0u) << lines[1];
  EXPECT_NE(lines[1].find("\"checksum\":\"11\""), std::string::npos) << lines[1];
  EXPECT_EQ(lines[3].rfind("{\"rep\":2,", 0), 0u) << lines[3];
  EXPECT_EQ(lines[3].find("\"start\""), std::string::npos) << "a model without workers echoes no start";
}

TEST(Protocol3, AVariantIsReadOnlyWhenItsRepetitionStarts) {
  const Invocation call = parse({"keygen", "--model", "seq"});
  std::istringstream stdin_lines("5\n6\n");
  std::ostringstream stdout_lines;
  std::vector<std::uint64_t> seen;
  std::vector<std::streamoff> read_so_far;
  run_repetitions(call, Ready{}, [&](std::uint64_t variant) {
    read_so_far.push_back(stdin_lines.tellg());
    return recording(seen, variant);
  }, stdin_lines, stdout_lines);
  EXPECT_EQ(read_so_far, (std::vector<std::streamoff>{2, 4})) << "repetition j has read lines 0..j only";
}

// Protocol 4: end of file is the end of the case, after k variants or before the first.
TEST(Protocol4, EndOfFileEndsTheCaseAfterOneRepLinePerVariant) {
  const Invocation call = parse({"keygen", "--model", "seq"});
  for (const std::string fed : {"", "5\n", "5\n6\n7\n"}) {
    std::istringstream stdin_lines(fed);
    std::ostringstream stdout_lines;
    std::vector<std::uint64_t> seen;
    run_repetitions(call, Ready{}, [&](std::uint64_t variant) { return recording(seen, variant); }, stdin_lines, stdout_lines);
    const auto lines = lines_of(stdout_lines.str());
    const std::size_t k = static_cast<std::size_t>(std::count(fed.begin(), fed.end(), '\n'));
    ASSERT_EQ(lines.size(), k + 1) << "the ready line and one line per variant: " << stdout_lines.str();
    for (std::size_t j = 0; j < k; ++j) {
      EXPECT_EQ(lines[j + 1].rfind("{\"rep\":" + std::to_string(j) + ",", 0), 0u) << lines[j + 1];
    }
  }
}

// Protocol 4: the launcher alone decides how many repetitions run, so a workload refuses both.
TEST(Protocol4, WarmupAndRepeatAreUnknownParams) {
  for (const char* flag : {"--warmup", "--repeat"}) {
    const Invocation call = parse({"noop", "--model", "seq", flag, "1"});
    EXPECT_THROW(workload_named("noop").run(call), UsageError) << flag;
  }
}

TEST(Protocol3, AVariantThatIsNotADecimal64BitIntegerIsAUsageError) {
  for (const char* line : {"x\n", "-4\n", "0x10\n", "\n", "12 13\n", "18446744073709551616\n"}) {
    std::istringstream stdin_lines(line);
    EXPECT_THROW(read_variant(stdin_lines, 0), UsageError) << line;
  }
  std::istringstream with_carriage_return("517\r\n");
  EXPECT_EQ(read_variant(with_carriage_return, 0).value(), 517u);
  std::istringstream keygen_seed("18446744073709551615\n");  // keygen's seeds use all 64 bits
  EXPECT_EQ(read_variant(keygen_seed, 0).value(), 18446744073709551615u);
  std::istringstream ended("");
  EXPECT_FALSE(read_variant(ended, 0).has_value()) << "end of file is no variant, and no error";
}

TEST(Protocol3, TheVariantsFlagIsGone) {
  EXPECT_THROW(parse({"keygen", "--model", "seq", "--variants", "1,2"}).accept_only({"count"}), UsageError);
}

TEST(Protocol3, EveryLineEchoesTheStartModeThatRan) {
  const Invocation call = parse({"keygen", "--model", "threads"});
  std::istringstream stdin_lines("1\n2\n");
  std::ostringstream stdout_lines;
  std::vector<std::uint64_t> seen;
  run_repetitions(call, Ready{StartMode::warm, 1234, {}}, [&](std::uint64_t variant) { return recording(seen, variant); },
                  stdin_lines, stdout_lines);
  const auto lines = lines_of(stdout_lines.str());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "{\"ready\":\"warm\",\"start_ns\":1234}");
  for (std::size_t k = 1; k < lines.size(); ++k) EXPECT_NE(lines[k].find("\"start\":\"warm\""), std::string::npos) << lines[k];
}

TEST(Protocol3, StartDefaultsToColdWhereOfferedElseTheOnlyMode) {
  EXPECT_EQ(start_mode(parse({"w", "--model", "threads"}), THREADED), StartMode::cold);
  EXPECT_EQ(start_mode(parse({"w", "--model", "threads", "--start", "warm"}), THREADED), StartMode::warm);
  EXPECT_EQ(start_mode(parse({"w", "--model", "team"}), WARM_ONLY), StartMode::warm);
  EXPECT_EQ(start_mode(parse({"w", "--model", "seq"}), SEQUENTIAL), StartMode::none);
}

TEST(Protocol3, AStartTheModelCannotRunIsAUsageErrorWithTheReason) {
  try {
    start_mode(parse({"w", "--model", "team", "--start", "cold"}), WARM_ONLY);
    FAIL() << "no UsageError";
  } catch (const UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("kept"), std::string::npos) << error.what();
  }
  EXPECT_THROW(start_mode(parse({"w", "--model", "seq", "--start", "cold"}), SEQUENTIAL), UsageError);
  EXPECT_THROW(start_mode(parse({"w", "--model", "threads", "--start", "hot"}), THREADED), UsageError);
}

// --- protocol 2 plumbing (protocol.hpp) --------------------------------------------------------

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
  const std::string line = repetition_line(3, repetition);
  EXPECT_EQ(line.rfind("{\"rep\":3,", 0), 0u) << line;
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
