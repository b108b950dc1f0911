// The registry behind registry.hpp: a list filled during static initialisation, read after main starts.
#include "registry.hpp"

#include <algorithm>

namespace parbench {

namespace {

// A function-local static, so it exists before the first registration whatever the order in which
// the workload files are initialised.
std::vector<Workload>& registrations() {
  static std::vector<Workload> workloads;
  return workloads;
}

}  // namespace

WorkloadRegistration::WorkloadRegistration(WorkloadInfo (*describe)(), void (*run)(const Invocation& call)) {
  registrations().push_back({describe, run});
}

std::vector<ListedWorkload> registered_workloads() {
  std::vector<ListedWorkload> listed;
  for (const Workload& workload : registrations()) listed.push_back({workload.describe(), workload});
  std::sort(listed.begin(), listed.end(),
            [](const ListedWorkload& a, const ListedWorkload& b) { return a.info.name < b.info.name; });
  return listed;
}

Workload workload_named(const std::string& name) {
  std::string valid;
  for (const ListedWorkload& listed : registered_workloads()) {
    if (listed.info.name == name) return listed.workload;
    valid += (valid.empty() ? "" : ", ") + listed.info.name;
  }
  throw UsageError("unknown workload '" + name + "'; valid: " + valid);
}

}  // namespace parbench
