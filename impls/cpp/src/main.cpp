// parbench-cpp: answers the harness protocol (`run --list`, `run <workload> --model M ...`).
#include <iostream>
#include <string>

#include "protocol.hpp"
#include "registry.hpp"

using namespace parbench;

namespace {

// {"cold": …, "warm": …} with the entries that are not empty; "" when both are.
std::string mode_object(const std::string& cold, const std::string& warm) {
  std::string json;
  if (!cold.empty()) json += "\"cold\":" + json_string(cold);
  if (!warm.empty()) json += (json.empty() ? "" : ",") + ("\"warm\":" + json_string(warm));
  return json.empty() ? json : "{" + json + "}";
}

std::string model_json(const ModelInfo& model) {
  std::string json = json_string(model.name) + ":{\"family\":" + json_string(model.family);
  if (model.workers) json += ",\"workers\":true";
  if (!model.note.empty()) json += ",\"note\":" + json_string(model.note);
  if (!model.flags.empty()) json += ",\"flags\":" + json_string(model.flags);
  if (!model.detail.empty()) json += ",\"detail\":" + json_string(model.detail);
  const std::string start = mode_object(model.start.cold, model.start.warm);
  const std::string unavailable = mode_object(model.start.cold_unavailable, model.start.warm_unavailable);
  if (!start.empty()) json += ",\"start\":" + start;
  if (!unavailable.empty()) json += ",\"start_unavailable\":" + unavailable;
  return json + "}";
}

std::string list_json() {
  std::string json = "{\"runtime\":\"cpp\",\"version\":" + json_string(PARBENCH_COMPILER) +
                     ",\"flags\":" + json_string("portable: " PARBENCH_CXX_PORTABLE_FLAGS " (the compiler's default target); tuned kernels: the same, "
                                 "with a target attribute per SIMD kernel, chosen when it runs; -std=c++20") +
                     ",\"sources\":{\"strong\":\"portable: getrandom(2), one call per batch of keys (~1 MiB, at most a chunk); tuned: OpenSSL 3 "
                     "EVP_RAND CTR-DRBG (AES-256), one instance per worker with no parent, seeded from getrandom when the worker starts\"}"
                     ",\"workloads\":{";
  bool first_workload = true;
  for (const ListedWorkload& listed : registered_workloads()) {
    const WorkloadInfo& workload = listed.info;
    json += (first_workload ? "" : ",") + json_string(workload.name) + ":{\"params\":[";
    first_workload = false;
    for (std::size_t k = 0; k < workload.params.size(); ++k) json += (k ? "," : "") + json_string(workload.params[k]);
    json += "],\"models\":{";
    bool first_model = true;
    for (const auto& model : workload.models) {
      json += (first_model ? "" : ",") + model_json(model);
      first_model = false;
    }
    json += "}";
    if (!workload.portable_kernel.empty()) {
      json += ",\"kernels\":{\"portable\":" + json_string(workload.portable_kernel);
      if (!workload.tuned_kernel.empty()) json += ",\"tuned\":" + json_string(workload.tuned_kernel);
      json += "}";
    }
    json += "}";
  }
  return json + "}}";
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 2 && std::string(argv[1]) == "--list") {
      std::cout << list_json() << std::endl;
      return 0;
    }
    const Invocation call = Invocation::parse(argc, argv);
    workload_named(call.workload).run(call);
    return 0;
  } catch (const UsageError& error) {
    std::cerr << error.what() << std::endl;
    return 2;
  } catch (const LimitReached& error) {
    std::cout << "{\"error\":\"limit\",\"detail\":" << json_string(error.what()) << "}" << std::endl;
    return 3;
  } catch (const std::bad_alloc& error) {
    std::cout << "{\"error\":\"limit\",\"detail\":" << json_string(std::string("out of memory: ") + error.what()) << "}"
              << std::endl;
    return 3;
  } catch (const std::exception& error) {
    // Anything else is a crash for the harness: say what broke on stderr, exit 1.
    std::cerr << "parbench-cpp: " << error.what() << std::endl;
    return 1;
  }
}
