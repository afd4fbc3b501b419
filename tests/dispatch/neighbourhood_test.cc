// The neighbourhood search keeps schedules feasible, never makes them worse, improves a poor
// start, and is reproducible.
#include <catch2/catch.hpp>

#include <chrono>

#include "dispatch/internal/baseline.h"
#include "dispatch/internal/neighbourhood.h"
#include "support/paths.h"

namespace ckptdp::internal {
namespace {

struct Start {
  Instance instance;
  std::vector<JobModes> modes;
};

Start Load(const char* file) {
  absl::StatusOr<Instance> in = LoadInstance(testing::SourcePath(std::string("instances/") + file));
  REQUIRE(in.ok());
  absl::StatusOr<std::vector<JobModes>> modes = BuildAllModes(*in);
  REQUIRE(modes.ok());
  return {*in, *modes};
}

Evaluated Search(const Start& s, Scenario scenario, std::uint64_t seed, double* start_cost) {
  const ScenarioContext c = MakeContext(s.instance, s.modes, scenario);
  Workspaces work;
  // The fixed baseline (S2 records its checkpoints, so it is a path of the S4/S6 graph).
  const BaselinePlan plan = BaselineSchedule(s.instance, s.modes, /*record_checkpoints=*/true);
  REQUIRE(plan.infeasible_reason.empty());
  absl::StatusOr<Evaluated> e = Evaluate(c, plan.schedule);
  REQUIRE(e.ok());
  REQUIRE(e->feasible);
  *start_cost = e->cost_usd;
  NeighbourhoodOptions options;
  options.seed = seed;
  const auto far = std::chrono::steady_clock::now() + std::chrono::hours(1);
  absl::StatusOr<NeighbourhoodStats> stats =
      ImproveByNeighbourhoodSearch(c, work, *e, {}, options, far, [](double) { return false; });
  REQUIRE(stats.ok());
  CHECK(stats->rounds >= options.stall_rounds);
  return *e;
}

TEST_CASE("Neighbourhood search improves the baseline and keeps it feasible", "[dispatch]") {
  for (const char* file : {"small_3job_12slot.json", "small_limits_10slot.json"}) {
    const Start s = Load(file);
    for (Scenario scenario : {Scenario::kS4, Scenario::kS6}) {
      INFO(file << " " << ScenarioName(scenario));
      double start_cost = 0;
      const Evaluated e = Search(s, scenario, 1, &start_cost);
      CHECK(e.feasible);
      CHECK(e.cost_usd < start_cost);
      // The cost it reports is the cost of the schedule it returns.
      ScenarioContext c = MakeContext(s.instance, s.modes, scenario);
      absl::StatusOr<Evaluated> again = Evaluate(c, e.schedule);
      REQUIRE(again.ok());
      CHECK(again->feasible);
      CHECK(again->cost_usd == Approx(e.cost_usd).epsilon(1e-12));
    }
  }
}

TEST_CASE("Neighbourhood search is reproducible for a seed", "[dispatch]") {
  const Start s = Load("small_3job_12slot.json");
  double a_start = 0, b_start = 0;
  const Evaluated a = Search(s, Scenario::kS6, 7, &a_start);
  const Evaluated b = Search(s, Scenario::kS6, 7, &b_start);
  CHECK(a.schedule == b.schedule);
  CHECK(a.cost_usd == b.cost_usd);
}

}  // namespace
}  // namespace ckptdp::internal
