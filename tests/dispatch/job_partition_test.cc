// How a distributed solve splits the job subproblems over ranks, and how schedules travel.
#include "dispatch/internal/job_partition.h"

#include <algorithm>
#include <catch2/catch.hpp>

#include "ckptdp/engine.h"
#include "ckptdp/generate.h"
#include "dispatch/internal/distributed.h"

namespace ckptdp::internal {
namespace {

Instance Fleet() {
  GenerateOptions options;
  options.jobs = 40;
  options.hours = 48;
  absl::StatusOr<Instance> in = GenerateInstance(options);
  REQUIRE(in.ok());
  return *in;
}

TEST_CASE("Every job belongs to exactly one rank and the estimated work is balanced") {
  const Instance in = Fleet();
  const std::vector<JobModes> modes = *BuildAllModes(in);
  const ScenarioContext c = MakeContext(in, modes, Scenario::kS4);
  double total = 0, largest = 0;
  for (int j = 0; j < c.num_jobs(); ++j) {
    total += EstimatedDpWork(c, j);
    largest = std::max(largest, EstimatedDpWork(c, j));
  }
  for (int ranks : {1, 2, 3, 7, 64}) {
    std::vector<int> owner(c.num_jobs(), -1);
    for (int r = 0; r < ranks; ++r) {
      double work = 0;
      for (int j : JobsOfRank(c, r, ranks)) {
        CHECK(owner[j] == -1);
        owner[j] = r;
        work += EstimatedDpWork(c, j);
      }
      // Largest-first to the least loaded rank: no rank exceeds the mean by more than a job.
      if (ranks <= c.num_jobs()) CHECK(work <= total / ranks + largest);
    }
    CHECK(std::count(owner.begin(), owner.end(), -1) == 0);
  }
}

TEST_CASE("A schedule packed for another rank unpacks equal") {
  const Instance in = Fleet();
  SolveOptions options;
  options.max_iterations = 5;
  options.max_nodes = 0;
  options.neighbourhood_stall_rounds = 0;
  options.diagnose_capacity = false;
  const absl::StatusOr<Result> r = SolveScenario(in, Scenario::kS4, options);
  REQUIRE(r.ok());
  REQUIRE_FALSE(r->schedule.jobs.empty());
  BytesWriter out;
  PackSchedule(r->schedule, out);
  BytesReader back(out.bytes());
  CHECK(UnpackSchedule(back) == r->schedule);
  CHECK(back.done());
}

}  // namespace
}  // namespace ckptdp::internal
