// The harness protocol: command-line parsing, the timed repetition loop and its JSON lines.
#include "protocol.hpp"

#include <sys/resource.h>

#include <algorithm>
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
  if (argc < 2) throw UsageError("usage: run <workload> --model <model> [--<param> <value> ...] --warmup W --repeat R | run --list");
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
  call.warmup = static_cast<int>(call.integer_or("warmup", 0));
  call.repeat = static_cast<int>(call.integer_or("repeat", 1));
  if (call.warmup < 0 || call.repeat < 1) throw UsageError("--warmup must be >= 0 and --repeat >= 1");
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

int Invocation::workers() const { return static_cast<int>(integer_or("workers", logical_cpus())); }

void Invocation::accept_only(const std::vector<std::string>& known) const {
  for (const auto& [name, value] : params_) {
    if (name == "model" || name == "warmup" || name == "repeat") continue;
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string valid;
      for (const auto& k : known) valid += (valid.empty() ? "--" : ", --") + k;
      throw UsageError("unknown param --" + name + " for " + workload + " --model " + model + "; valid: " + valid);
    }
  }
}

void require_known_model(const Invocation& call, const WorkloadInfo& workload) {
  std::string valid;
  for (const auto& model : workload.models) {
    if (model.name == call.model) return;
    valid += (valid.empty() ? "" : ", ") + model.name;
  }
  throw UsageError("unknown model '" + call.model + "' for " + workload.name + "; valid: " + valid);
}

std::uint64_t monotonic_ns() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<std::uint64_t>(now.tv_sec) * 1'000'000'000ull + static_cast<std::uint64_t>(now.tv_nsec);
}

ProcessUsage process_usage() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  auto ns = [](const timeval& t) { return std::int64_t{t.tv_sec} * 1'000'000'000 + std::int64_t{t.tv_usec} * 1'000; };
  return {ns(usage.ru_utime), ns(usage.ru_stime), usage.ru_minflt};
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
  if (auto* real = std::get_if<double>(&value)) {
    char text[32];
    std::snprintf(text, sizeof text, "%.6g", *real);
    return text;
  }
  return json_string(std::get<std::string>(value));
}

}  // namespace

std::string repetition_line(int rep, const Repetition& repetition) {
  std::string line = "{\"rep\":" + std::to_string(rep) + ",\"ns\":" + std::to_string(repetition.ns) +
                     ",\"items\":" + std::to_string(repetition.items) +
                     ",\"checksum\":" + json_string(repetition.checksum);
  if (!repetition.extra.empty()) {
    line += ",\"extra\":{";
    bool first = true;
    for (const auto& [name, value] : repetition.extra) {
      line += (first ? "" : ",") + json_string(name) + ":" + json_value(value);
      first = false;
    }
    line += "}";
  }
  return line + "}";
}

void run_repetitions(const Invocation& call, const std::function<Repetition()>& repetition) {
  for (int i = 0; i < call.warmup; ++i) repetition();
  for (int rep = 0; rep < call.repeat; ++rep) {
    // Flushed per line so a later limit or crash still leaves the finished repetitions.
    std::cout << repetition_line(rep, repetition()) << std::endl;
  }
}

int logical_cpus() {
  const unsigned count = std::thread::hardware_concurrency();
  return count == 0 ? 1 : static_cast<int>(count);
}

}  // namespace parbench
