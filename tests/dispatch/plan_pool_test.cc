// Tests of the plan pool (ckptdp/plan_pool.h): distinct plans per job in first-met order,
// and what a solve puts in it.
#include "ckptdp/plan_pool.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "ckptdp/engine.h"
#include "ckptdp/instance.h"
#include "support/paths.h"

namespace ckptdp {
namespace {

Instance Load(const std::string& name) {
  absl::StatusOr<Instance> in = LoadInstance(testing::SourcePath("instances/" + name));
  REQUIRE(in.ok());
  return *in;
}

bool Holds(const PlanPool& pool, int job, const std::vector<Run>& runs) {
  if (job >= pool.num_jobs()) return false;
  const auto& plans = pool.plans()[job];
  return std::find(plans.begin(), plans.end(), runs) != plans.end();
}

TEST_CASE("plan pool: a plan is kept once per job, in the order first met", "[dispatch]") {
  PlanPool pool;
  const std::vector<Run> a = {{0, 2, 0, 1, 3, 1e18}};
  const std::vector<Run> b = {{1, 3, 0, 1, 3, 1e18}};
  std::vector<Run> a_resumed = a;
  a_resumed[0].overhead_minutes = 30;  // same slots and mode, another run: another plan
  CHECK(pool.Add(1, a));
  CHECK(pool.num_jobs() == 2);
  CHECK(pool.plans()[0].empty());
  CHECK_FALSE(pool.Add(1, a));
  CHECK(pool.Add(1, b));
  CHECK(pool.Add(1, a_resumed));
  CHECK(pool.Add(0, a));  // the same runs are a separate plan of another job
  CHECK(pool.size() == 4);
  REQUIRE(pool.plans()[1].size() == 3);
  CHECK(pool.plans()[1][0] == a);
  CHECK(pool.plans()[1][1] == b);
  CHECK(pool.plans()[1][2] == a_resumed);

  Schedule schedule;
  schedule.jobs = {b, a};
  pool.AddSchedule(schedule);  // b is new for job 0, a is known for job 1
  CHECK(pool.size() == 5);
  CHECK(Holds(pool, 0, b));
}

TEST_CASE(
    "plan pool: a solve collects the relaxed plans and its schedule, the same for any "
    "thread count",
    "[dispatch]") {
  const Instance in = Load("small_3job_12slot.json");
  for (Scenario scenario : {Scenario::kS2, Scenario::kS3, Scenario::kS4, Scenario::kS6}) {
    INFO(ScenarioName(scenario));
    std::vector<PlanPool> pools(2);
    for (int threads : {1, 2}) {
      SolveOptions options;
      options.threads = threads;
      options.plan_pool = &pools[threads - 1];
      absl::StatusOr<Result> result = SolveScenario(in, scenario, options);
      REQUIRE(result.ok());
      REQUIRE(result->schedule.jobs.size() == in.jobs.size());
      const PlanPool& pool = pools[threads - 1];
      REQUIRE(pool.num_jobs() == static_cast<int>(in.jobs.size()));
      for (int j = 0; j < pool.num_jobs(); ++j) {
        CHECK(Holds(pool, j, result->schedule.jobs[j]));
      }
      // S2 follows the baseline: its one schedule is the pool. The flexible scenarios add
      // the relaxed plans of every Lagrangian iteration, which differ from the schedule's.
      if (scenario == Scenario::kS2) {
        CHECK(pool.size() == pool.num_jobs());
      } else {
        CHECK(pool.size() > 2 * pool.num_jobs());
      }
    }
    CHECK(pools[0].plans() == pools[1].plans());
  }
}

}  // namespace
}  // namespace ckptdp
