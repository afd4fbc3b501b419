// The shipped paper instance (instances/paper_2048gpu.json, Tables I-II), loaded once per
// test binary, and its jobs by name.
#ifndef CKPTDP_TESTS_SUPPORT_PAPER_INSTANCE_H_
#define CKPTDP_TESTS_SUPPORT_PAPER_INSTANCE_H_

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ckptdp/instance.h"
#include "support/paths.h"

namespace ckptdp::testing {

inline const Instance& PaperInstance() {
  static const Instance instance = [] {
    absl::StatusOr<Instance> in = LoadInstance(SourcePath("instances/paper_2048gpu.json"));
    REQUIRE(in.ok());
    return *in;
  }();
  return instance;
}

// Index of the paper job `name` ("LLM-A-13B" or "LLM-B-33B").
inline int PaperJobIndex(const std::string& name) {
  const std::vector<Job>& jobs = PaperInstance().jobs;
  const auto it =
      std::find_if(jobs.begin(), jobs.end(), [&](const Job& j) { return j.name == name; });
  REQUIRE(it != jobs.end());
  return static_cast<int>(it - jobs.begin());
}

inline const Job& PaperJob(const std::string& name) {
  return PaperInstance().jobs[PaperJobIndex(name)];
}

}  // namespace ckptdp::testing

#endif  // CKPTDP_TESTS_SUPPORT_PAPER_INSTANCE_H_
