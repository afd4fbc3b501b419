// Solves scenario S4 of an instance with the installed ckptdp library.
#include <cstdio>

#include "ckptdp/engine.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s INSTANCE.json\n", argv[0]);
    return 2;
  }
  absl::StatusOr<ckptdp::Instance> instance = ckptdp::LoadInstance(argv[1]);
  if (!instance.ok()) {
    std::fprintf(stderr, "%s\n", instance.status().ToString().c_str());
    return 2;
  }
  absl::StatusOr<ckptdp::Result> result =
      ckptdp::SolveScenario(*instance, ckptdp::Scenario::kS4, ckptdp::SolveOptions{});
  if (!result.ok() || result->schedule.jobs.empty()) return 1;  // error, or no schedule
  std::printf("S4: cost %.2f USD, gap %.4f %%\n", result->objective_usd, 100 * result->gap);
  return 0;
}
