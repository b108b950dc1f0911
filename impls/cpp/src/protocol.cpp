// The harness protocol: command-line parsing, the timed repetition loop and its JSON lines.
#include "protocol.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <thread>

namespace parbench {

namespace {

std::int64_t parse_integer(const std::string& name, const std::string& value) {
  try {
    std::size_t used = 0;
    const long long parsed = std::stoll(value, &used, 0);
    if (used == value.size()) return parsed;
  } catch (const std::exception&) {
  }
  throw UsageError("--" + name + " expects an integer, got '" + value + "'");
}

}  // namespace

Invocation Invocation::parse(int argc, char** argv) {
  Invocation call;
  if (argc < 2) throw UsageError("usage: run <workload> --model <model> [--<param> <value> ...] | run --list");
  call.workload = argv[1];
  for (int i = 2; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag.rfind("--", 0) != 0) throw UsageError("unexpected argument '" + flag + "'; params are --<name> <value>");
    if (i + 1 >= argc) throw UsageError(flag + " needs a value");
    std::string name = flag.substr(2);
    std::replace(name.begin(), name.end(), '-', '_');
    call.params_[name] = argv[++i];
  }
  if (!call.has("model")) throw UsageError("--model is required for " + call.workload);
  call.model = call.text("model");
  if (call.has("workers") && call.workers() < 1) throw UsageError("--workers must be >= 1");
  return call;
}

std::string Invocation::text(const std::string& name) const {
  auto found = params_.find(name);
  if (found == params_.end()) throw UsageError(workload + " needs --" + name);
  return found->second;
}

std::string Invocation::text_or(const std::string& name, const std::string& fallback) const {
  auto found = params_.find(name);
  return found == params_.end() ? fallback : found->second;
}

std::int64_t Invocation::integer(const std::string& name) const { return parse_integer(name, text(name)); }

std::int64_t Invocation::integer_or(const std::string& name, std::int64_t fallback) const {
  return has(name) ? integer(name) : fallback;
}

std::vector<std::int64_t> Invocation::integer_list(const std::string& name) const {
  std::vector<std::int64_t> values;
  if (!has(name)) return values;
  const std::string text = params_.at(name);
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    const std::int64_t value = parse_integer(name, text.substr(at, comma - at));
    if (value < 0) throw UsageError("--" + name + " expects non-negative integers, got " + std::to_string(value));
    values.push_back(value);
    at = comma + 1;
  }
  return values;
}

int Invocation::workers() const { return static_cast<int>(integer_or("workers", logical_cpus())); }

void Invocation::accept_only(const std::vector<std::string>& known) const {
  for (const auto& [name, value] : params_) {
    if (name == "model" || name == "start") continue;
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string valid;
      for (const auto& k : known) valid += (valid.empty() ? "--" : ", --") + k;
      throw UsageError("unknown param --" + name + " for " + workload + " --model " + model + "; valid: " + valid);
    }
  }
}

const ModelInfo& require_known_model(const Invocation& call, const WorkloadInfo& workload) {
  std::string valid;
  for (const auto& model : workload.models) {
    if (model.name == call.model) return model;
    valid += (valid.empty() ? "" : ", ") + model.name;
  }
  throw UsageError("unknown model '" + call.model + "' for " + workload.name + "; valid: " + valid);
}

const char* start_mode_name(StartMode start) {
  return start == StartMode::cold ? "cold" : start == StartMode::warm ? "warm" : "none";
}

namespace {

std::string offered_modes(const StartOffer& offer) {
  if (!offer.cold.empty() && !offer.warm.empty()) return "cold, warm";
  return offer.cold.empty() ? "warm" : "cold";
}

}  // namespace

StartMode start_mode(const Invocation& call, const ModelInfo& model) {
  const StartOffer& offer = model.start;
  if (!model.workers || (offer.cold.empty() && offer.warm.empty())) {
    if (!call.has("start")) return StartMode::none;
    const std::string why = model.workers ? "cold: " + offer.cold_unavailable + "; warm: " + offer.warm_unavailable
                                          : "it has no workers";
    throw UsageError("--start does not apply to " + call.workload + " --model " + model.name + " (" + why + ")");
  }
  const std::string asked = call.text_or("start", offer.cold.empty() ? "warm" : "cold");
  if (asked != "cold" && asked != "warm") {
    throw UsageError("--start must be cold or warm, got '" + asked + "'; valid for --model " + model.name + ": " + offered_modes(offer));
  }
  const bool cold = asked == "cold";
  if (cold ? offer.cold.empty() : offer.warm.empty()) {
    throw UsageError("--start " + asked + " is not available for " + call.workload + " --model " + model.name + ": " +
                     (cold ? offer.cold_unavailable : offer.warm_unavailable) + "; valid: " + offered_modes(offer));
  }
  return cold ? StartMode::cold : StartMode::warm;
}

std::uint64_t monotonic_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(now.tv_nsec);
}

ProcessUsage process_usage() {
  rusage self{}, children{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  auto ns = [](const timeval& t) { return std::int64_t{t.tv_sec} * 1'000'000'000 + std::int64_t{t.tv_usec} * 1'000; };
  return {ns(self.ru_utime) + ns(children.ru_utime), ns(self.ru_stime) + ns(children.ru_stime),
          self.ru_minflt + children.ru_minflt};
}

std::string BusyLog::json(std::uint64_t clock_start) const {
  std::string out = "[";
  for (std::size_t w = 0; w < slots_.size(); ++w) {
    const Slot& slot = slots_[w];
    if (slot.first == 0) continue;  // a worker that got no chunk has no interval
    const auto relative = [clock_start](std::uint64_t t) { return std::to_string(t > clock_start ? t - clock_start : 0); };
    out += (out.size() > 1 ? "," : "") + ("[" + std::to_string(w) + "," + relative(slot.first) + "," + relative(slot.last) + "]");
  }
  return out + "]";
}

KernelClass kernel_class(const Invocation& call, const WorkloadInfo& workload) {
  const std::string name = call.text_or("kernel", "portable");
  if (name == "portable") return KernelClass::portable;
  if (name == "tuned" && !workload.tuned_kernel.empty()) return KernelClass::tuned;
  throw UsageError("unknown kernel '" + name + "' for " + workload.name + "; valid: portable" +
                   (workload.tuned_kernel.empty() ? " (no tuned kernel in C++)" : ", tuned"));
}

const char* kernel_class_name(KernelClass kernel) { return kernel == KernelClass::tuned ? "tuned" : "portable"; }

void report_kernel(Extra& extra, KernelClass kernel, const std::string& detail) {
  extra.push_back({"kernel", std::string(kernel_class_name(kernel))});
  extra.push_back({"kernel_detail", detail});
}

std::string json_string(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", c);
          out += escaped;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

namespace {

std::string json_value(const ExtraValue& value) {
  if (auto* integer = std::get_if<std::int64_t>(&value)) return std::to_string(*integer);
  if (auto* raw = std::get_if<RawJson>(&value)) return raw->text;
  if (auto* real = std::get_if<double>(&value)) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", *real);
    return text;
  }
  return json_string(std::get<std::string>(value));
}

std::string extra_json(const Extra& extra) {
  std::string json = "{";
  for (const auto& [name, value] : extra) json += (json.size() > 1 ? "," : "") + json_string(name) + ":" + json_value(value);
  return json + "}";
}

}  // namespace

std::string json_string_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t k = 0; k < items.size(); ++k) out += (k ? "," : "") + json_string(items[k]);
  return out + "]";
}

std::string ready_line(const Ready& ready) {
  std::string line = "{\"ready\":" + json_string(start_mode_name(ready.start));
  if (ready.start == StartMode::warm) line += ",\"start_ns\":" + std::to_string(ready.start_ns);
  if (!ready.extra.empty()) line += ",\"extra\":" + extra_json(ready.extra);
  return line + "}";
}

std::string repetition_line(int j, const Repetition& repetition) {
  Extra extra = repetition.extra;
  extra.push_back({"cpu_user_ns", repetition.cpu.user_ns});
  extra.push_back({"cpu_sys_ns", repetition.cpu.sys_ns});
  extra.push_back({"checksum_ns", static_cast<std::int64_t>(repetition.checksum_ns)});
  if (repetition.prepare_ns >= 0) extra.push_back({"prepare_ns", repetition.prepare_ns});
  if (repetition.cleanup_ns >= 0) extra.push_back({"cleanup_ns", repetition.cleanup_ns});
  if (!repetition.busy.empty()) extra.push_back({"busy", RawJson{repetition.busy}});
  return "{\"rep\":" + std::to_string(j) + ",\"ns\":" + std::to_string(repetition.ns) +
         ",\"items\":" + std::to_string(repetition.items) + ",\"checksum\":" + json_string(repetition.checksum) +
         ",\"extra\":" + extra_json(extra) + "}";
}

std::optional<std::uint64_t> read_variant(std::istream& variants, int j) {
  std::string line;
  if (!std::getline(variants, line)) return std::nullopt;
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  std::uint64_t variant = 0;
  const char* end = line.data() + line.size();
  const auto [stop, error] = std::from_chars(line.data(), end, variant);
  if (line.empty() || error != std::errc() || stop != end) {
    throw UsageError("the variant of repetition " + std::to_string(j) + " must be a decimal integer 0..2^64-1, got '" + line + "'");
  }
  return variant;
}

void run_repetitions(const Invocation& /*call*/, const Ready& ready,
                     const std::function<Repetition(std::uint64_t variant)>& repetition, std::istream& variants,
                     std::ostream& out) {
  // Flushed per line: the launcher writes the next variant only after it has read this one, and a
  // later limit or crash still leaves the finished repetitions.
  out << ready_line(ready) << std::endl;
  for (int j = 0;; ++j) {
    const std::optional<std::uint64_t> variant = read_variant(variants, j);
    if (!variant) return;
    Repetition done = repetition(*variant);
    if (ready.start != StartMode::none) done.extra.push_back({"start", std::string(start_mode_name(ready.start))});
    out << repetition_line(j, done) << std::endl;
  }
}

void run_repetitions(const Invocation& call, const Ready& ready, const std::function<Repetition()>& repetition,
                     std::istream& variants, std::ostream& out) {
  run_repetitions(call, ready, [&](std::uint64_t) { return repetition(); }, variants, out);
}

int logical_cpus() {
  const unsigned count = std::thread::hardware_concurrency();
  return count == 0 ? 1 : static_cast<int>(count);
}

}  // namespace parbench
