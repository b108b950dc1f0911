// noop: an empty timed region, so a run measures the process's boot and the harness around it.
#include <string>

#include "protocol.hpp"
#include "registry.hpp"

namespace parbench::noop {

namespace {

WorkloadInfo describe() { return {"noop", {}, {{"seq", "seq", false, "an empty timed region: boot and harness overhead"}}}; }

void run(const Invocation& call) {
  const WorkloadInfo info = describe();
  require_known_model(call, info);
  call.accept_only({});
  run_repetitions(call, Ready{}, [] {
    Repetition repetition;
    time_region(repetition, [] {});
    time_checksum(repetition, [] { return std::string("noop"); });
    return repetition;
  });
}

const WorkloadRegistration registered{describe, run};

}  // namespace

}  // namespace parbench::noop
