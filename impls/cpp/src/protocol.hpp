// The harness protocol: command-line parsing, the timed repetition loop and its JSON lines.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
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

using ExtraValue = std::variant<std::int64_t, double, std::string>;
// Ordered so the JSON lines read the same every time.
using Extra = std::vector<std::pair<std::string, ExtraValue>>;

struct Repetition {
  std::uint64_t ns = 0;
  std::uint64_t items = 0;
  std::string checksum;
  Extra extra;
};

// One call of `run <workload> --model M --param value ... --warmup W --repeat R`.
class Invocation {
 public:
  static Invocation parse(int argc, char** argv);

  std::string workload;
  std::string model;
  int warmup = 0;
  int repeat = 1;

  // Params are kept as text until a workload asks for them with the type it needs.
  std::string text(const std::string& name) const;
  std::string text_or(const std::string& name, const std::string& fallback) const;
  std::int64_t integer(const std::string& name) const;
  std::int64_t integer_or(const std::string& name, std::int64_t fallback) const;
  bool has(const std::string& name) const { return params_.count(name) != 0; }

  // --workers N, or the machine's logical CPUs.
  int workers() const;
  bool workers_given() const { return has("workers"); }

  // Rejects params the workload does not know, so a typo is exit 2 instead of a silent default.
  void accept_only(const std::vector<std::string>& known) const;

 private:
  std::map<std::string, std::string> params_;
};

// What `run --list` says about one model and one workload.
struct ModelInfo {
  std::string name;
  std::string family;
  bool workers = false;
  std::string note;
  std::string flags;
};

struct WorkloadInfo {
  std::string name;
  std::vector<std::string> params;
  std::vector<ModelInfo> models;
};

// Throws a UsageError naming the valid models unless the call's model is one of `workload`'s.
void require_known_model(const Invocation& call, const WorkloadInfo& workload);

std::uint64_t monotonic_ns();

// getrusage(RUSAGE_SELF): every thread of the process, finished ones included.
struct ProcessUsage {
  std::int64_t user_ns = 0;
  std::int64_t sys_ns = 0;
  std::int64_t minor_faults = 0;
  ProcessUsage operator-(const ProcessUsage& earlier) const {
    return {user_ns - earlier.user_ns, sys_ns - earlier.sys_ns, minor_faults - earlier.minor_faults};
  }
};
ProcessUsage process_usage();

// Times `work` between two monotonic clock reads.
template <class Work>
std::uint64_t time_ns(Work&& work) {
  const std::uint64_t start = monotonic_ns();
  work();
  return monotonic_ns() - start;
}

std::string json_string(const std::string& text);
std::string repetition_line(int rep, const Repetition& repetition);

// Runs `warmup` unprinted repetitions, then prints one JSON line per timed repetition.
void run_repetitions(const Invocation& call, const std::function<Repetition()>& repetition);

int logical_cpus();

}  // namespace parbench
