// The workloads this executable answers for. Each workload's .cpp registers itself once, and
// dispatch, `--list` and the "valid:" message all read this one list, so a new workload is its
// own .cpp/.hpp, one WorkloadRegistration in it, and its test (CMake picks the files up).
#pragma once

#include <string>
#include <vector>

#include "protocol.hpp"

namespace parbench {

struct Workload {
  WorkloadInfo (*describe)();
  void (*run)(const Invocation& call);
};

// One at namespace scope in each workload's .cpp, e.g. `const WorkloadRegistration registered{describe, run};`.
// Registration only stores the two functions: describe() is not called before main, so it may read
// any other global.
struct WorkloadRegistration {
  WorkloadRegistration(WorkloadInfo (*describe)(), void (*run)(const Invocation& call));
};

// Every registered workload with what it describes, ordered by name (static initialisation order
// across files is unspecified, so the order is made here).
struct ListedWorkload {
  WorkloadInfo info;
  Workload workload;
};
std::vector<ListedWorkload> registered_workloads();

// The workload registered under `name`; a UsageError naming the valid ones if there is none.
Workload workload_named(const std::string& name);

}  // namespace parbench
