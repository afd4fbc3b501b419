// An instance loaded from instances/ together with its jobs' feasible modes: the starting
// point of the dispatch tests that call the engine's internals directly.
#ifndef CKPTDP_TESTS_SUPPORT_INSTANCE_MODES_H_
#define CKPTDP_TESTS_SUPPORT_INSTANCE_MODES_H_

#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "support/paths.h"

namespace ckptdp::testing {

struct InstanceModes {
  Instance instance;
  std::vector<JobModes> modes;
};

inline InstanceModes LoadInstanceModes(const char* file) {
  absl::StatusOr<Instance> in = LoadInstance(SourcePath(std::string("instances/") + file));
  REQUIRE(in.ok());
  absl::StatusOr<std::vector<JobModes>> modes = BuildAllModes(*in);
  REQUIRE(modes.ok());
  return {*in, *modes};
}

}  // namespace ckptdp::testing

#endif  // CKPTDP_TESTS_SUPPORT_INSTANCE_MODES_H_
