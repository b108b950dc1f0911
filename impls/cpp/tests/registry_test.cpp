// The registry (src/registry.hpp): every workload file registers itself once, and a name that is
// not registered is a usage error naming the valid ones.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "registry.hpp"

using namespace parbench;

TEST(Registry, EveryWorkloadFileRegisteredItselfOnce) {
  std::multiset<std::string> names;
  for (const ListedWorkload& listed : registered_workloads()) names.insert(listed.info.name);
  // Each of these lives in its own src/workloads/*.cpp; a missing one is an object file the link dropped.
  for (const char* name : {"noop", "keygen", "sdes-ecb", "batch-job", "spawn-chain", "coroutine-swarm", "echo-server"}) {
    EXPECT_EQ(names.count(name), 1u) << name;
  }
}

TEST(Registry, ListsWorkloadsByName) {
  std::string previous;
  for (const ListedWorkload& listed : registered_workloads()) {
    EXPECT_LT(previous, listed.info.name);
    previous = listed.info.name;
  }
}

TEST(Registry, FindsARegisteredWorkloadByItsName) {
  for (const ListedWorkload& listed : registered_workloads()) {
    EXPECT_EQ(workload_named(listed.info.name).run, listed.workload.run) << listed.info.name;
  }
}

TEST(Registry, AnUnknownNameIsAUsageErrorNamingTheValidOnes) {
  try {
    workload_named("sdes");
    FAIL() << "no UsageError";
  } catch (const UsageError& error) {
    EXPECT_EQ(std::string(error.what()),
              "unknown workload 'sdes'; valid: batch-job, coroutine-swarm, echo-server, keygen, noop, sdes-ecb, spawn-chain");
  }
}
