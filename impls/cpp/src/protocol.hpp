// The harness protocol: command-line parsing, the timed repetition loop and its JSON lines.
#pragma once

#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace parbench {

// Exit code 2: the message names what is wrong and what is valid.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Exit code 3: a resource limit stopped the work; `what()` is the system's own message.
struct LimitReached : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// JSON written as is (busy intervals, probe lists).
struct RawJson {
  std::string text;
};
using ExtraValue = std::variant<std::int64_t, double, std::string, RawJson>;
// Ordered so the JSON lines read the same every time.
using Extra = std::vector<std::pair<std::string, ExtraValue>>;

// getrusage(RUSAGE_SELF) + getrusage(RUSAGE_CHILDREN): every thread of the process, finished
// ones included, and every child reaped so far (no model forks today; it costs nothing to count).
struct ProcessUsage {
  std::int64_t user_ns = 0;
  std::int64_t sys_ns = 0;
  std::int64_t minor_faults = 0;
  ProcessUsage operator-(const ProcessUsage& earlier) const {
    return {user_ns - earlier.user_ns, sys_ns - earlier.sys_ns, minor_faults - earlier.minor_faults};
  }
};
ProcessUsage process_usage();

std::uint64_t monotonic_ns();

// Each worker's busy interval in one repetition: from the start of its first chunk (document,
// link, step) to the end of its last, on the monotonic clock. Worker w's slot is written only by
// the thread that is worker w, so no locking; it is read after the workers are joined.
class BusyLog {
 public:
  explicit BusyLog(int workers) : slots_(static_cast<std::size_t>(workers)) {}
  // Worker w ran from `start` to `end` (call in order of time).
  void span(int worker, std::uint64_t start, std::uint64_t end) {
    Slot& slot = slots_[static_cast<std::size_t>(worker)];
    if (slot.first == 0) slot.first = start;
    slot.last = end;
  }
  // Worker w was running at `now`.
  void touch(int worker, std::uint64_t now) { span(worker, now, now); }
  // [[worker, start_ns, end_ns], ...] relative to the repetition's clock start.
  std::string json(std::uint64_t clock_start) const;

 private:
  struct alignas(64) Slot {  // one cache line each: workers write their own slot
    std::uint64_t first = 0;
    std::uint64_t last = 0;
  };
  std::vector<Slot> slots_;
};

struct Repetition {
  std::uint64_t ns = 0;
  std::uint64_t items = 0;
  std::string checksum;
  Extra extra;
  // Protocol 2: filled by time_region / time_checksum, or by the workload where it spends time.
  std::uint64_t clock_start = 0;  // the monotonic clock when `ns` began
  ProcessUsage cpu;               // getrusage across the timed region
  std::uint64_t checksum_ns = 0;
  std::int64_t prepare_ns = -1;   // -1: nothing done before the clock
  std::int64_t cleanup_ns = -1;   // -1: nothing done after the checksum and the ceiling
  std::string busy;               // BusyLog::json, empty for models without workers
};

// The repetition's timed region: the monotonic clock around `work`, getrusage read right after
// starting the clock and right before stopping it.
template <class Work>
void time_region(Repetition& repetition, Work&& work) {
  repetition.clock_start = monotonic_ns();
  const ProcessUsage before = process_usage();
  work();
  const ProcessUsage after = process_usage();
  repetition.ns = monotonic_ns() - repetition.clock_start;
  repetition.cpu = after - before;
}

// The checksum after the clock stopped, and how long it took.
template <class Checksum>
void time_checksum(Repetition& repetition, Checksum&& checksum) {
  const std::uint64_t start = monotonic_ns();
  repetition.checksum = checksum();
  repetition.checksum_ns = monotonic_ns() - start;
}

// One call of `run <workload> --model M --param value ...`. There is no --warmup or --repeat
// (protocol 4): the launcher alone decides how many repetitions run, so accept_only refuses them.
class Invocation {
 public:
  static Invocation parse(int argc, char** argv);

  std::string workload;
  std::string model;

  // Params are kept as text until a workload asks for them with the type it needs.
  std::string text(const std::string& name) const;
  std::string text_or(const std::string& name, const std::string& fallback) const;
  std::int64_t integer(const std::string& name) const;
  std::int64_t integer_or(const std::string& name, std::int64_t fallback) const;
  // A comma-separated list of non-negative integers (--probes); empty if absent.
  std::vector<std::int64_t> integer_list(const std::string& name) const;
  bool has(const std::string& name) const { return params_.count(name) != 0; }

  // --workers N, or the machine's logical CPUs.
  int workers() const;
  bool workers_given() const { return has("workers"); }

  // Rejects params the workload does not know (--start is checked by start_mode), so a typo is exit 2
  // instead of a silent default.
  void accept_only(const std::vector<std::string>& known) const;

 private:
  std::map<std::string, std::string> params_;
};

// Protocol 3's start mode: a parallel model's workers made in every repetition (cold) or once
// before the ready line (warm); `none` for models without workers.
enum class StartMode { none, cold, warm };
const char* start_mode_name(StartMode start);

// --list's "start" (what each mode makes, and where) and "start_unavailable" (why a mode cannot
// apply); an empty string leaves the entry out.
struct StartOffer {
  std::string cold;
  std::string warm;
  std::string cold_unavailable;
  std::string warm_unavailable;
};

// What `run --list` says about one model and one workload.
struct ModelInfo {
  std::string name;
  std::string family;
  bool workers = false;
  std::string note;
  std::string flags;
  StartOffer start;
  std::string detail = {};  // a server's model_detail (echo-server's --list entry and ready line)
};

struct WorkloadInfo {
  std::string name;
  std::vector<std::string> params;
  std::vector<ModelInfo> models;
  // --list's "kernels": what each class runs; empty = the workload has no kernel classes / no tuned.
  std::string portable_kernel = {};
  std::string tuned_kernel = {};
};

// --kernel portable|tuned (default portable): the spec's algorithm as plain C++ and its standard
// library, or the engineered form.
enum class KernelClass { portable, tuned };
// Exit 2 for an unknown class, or `tuned` where the workload has none.
KernelClass kernel_class(const Invocation& call, const WorkloadInfo& workload);
const char* kernel_class_name(KernelClass kernel);
// extra.kernel and extra.kernel_detail.
void report_kernel(Extra& extra, KernelClass kernel, const std::string& detail);

// The call's model, or a UsageError naming the valid models.
const ModelInfo& require_known_model(const Invocation& call, const WorkloadInfo& workload);
// The answer refers into `workload`, which must outlive it.
const ModelInfo& require_known_model(const Invocation& call, const WorkloadInfo&& workload) = delete;

// --start as the model offers it: cold by default where offered, else the only mode; exit 2 with
// the model's reason for a mode it cannot run, and for --start on a model without workers.
StartMode start_mode(const Invocation& call, const ModelInfo& model);

// Protocol 3's ready line: the start mode that runs and, for warm, the time spent making the
// workers before it (`start_ns`, on the clock of `ns`) and what was made (`extra`).
struct Ready {
  StartMode start = StartMode::none;
  std::uint64_t start_ns = 0;
  Extra extra;
};
std::string ready_line(const Ready& ready);

// Times `work` between two monotonic clock reads.
template <class Work>
std::uint64_t time_ns(Work&& work) {
  const std::uint64_t start = monotonic_ns();
  work();
  return monotonic_ns() - start;
}

std::string json_string(const std::string& text);
// Repetition j's line, {"rep":j,...}: every repetition's alike, since which of them are warm-ups
// is the harness's decision, made after the fact (protocol 4).
std::string repetition_line(int j, const Repetition& repetition);
std::string json_string_list(const std::vector<std::string>& items);

// Repetition j's variant: one line of `variants`, a decimal integer 0 .. 2^64-1 (keygen's seeds use
// all 64 bits); exit 2 otherwise. None at end of file: the launcher wants no further repetition.
std::optional<std::uint64_t> read_variant(std::istream& variants, int j);

// Protocols 3 and 4's conversation: prints the ready line, then reads one variant from `variants`
// (outside the clock), runs its repetition and prints its line {"rep":j,...}, extra.start echoing a
// parallel model's start mode, until `variants` ends; the process never knows how many repetitions
// there will be. The caller's warm workers end when it returns, as before. `call` no longer decides
// anything here; it stays so that the workloads' calls are unchanged.
void run_repetitions(const Invocation& call, const Ready& ready,
                     const std::function<Repetition(std::uint64_t variant)>& repetition,
                     std::istream& variants = std::cin, std::ostream& out = std::cout);
// For workloads whose variant is always 0 (batch-job, noop): the line is read and ignored.
void run_repetitions(const Invocation& call, const Ready& ready, const std::function<Repetition()>& repetition,
                     std::istream& variants = std::cin, std::ostream& out = std::cout);

int logical_cpus();

}  // namespace parbench
