// The portfolio of search streams: one stream is the plain search draw for draw, and a
// given number of streams gives the same schedule on any number of threads.
#include <catch2/catch.hpp>

#include <chrono>

#include "dispatch/internal/baseline.h"
#include "dispatch/internal/portfolio_search.h"
#include "support/instance_modes.h"

namespace ckptdp::internal {
namespace {

using Start = testing::InstanceModes;

Start Load(const char* file) { return testing::LoadInstanceModes(file); }

// The fixed baseline (it records its checkpoints, so it is a path of the S4/S6 graphs).
Evaluated Baseline(const Start& s, const ScenarioContext& c) {
  const BaselinePlan plan = BaselineSchedule(s.instance, s.modes, /*record_checkpoints=*/true);
  REQUIRE(plan.infeasible_reason.empty());
  absl::StatusOr<Evaluated> e = Evaluate(c, plan.schedule);
  REQUIRE(e.ok());
  REQUIRE(e->feasible);
  return *e;
}

struct Searched {
  Evaluated result;
  NeighbourhoodStats stats;
  double start_cost = 0;
};

// Searches from the baseline until the stall rule stops it (no deadline).
Searched Run(const Start& s, Scenario scenario, int streams, int threads) {
  const ScenarioContext c = MakeContext(s.instance, s.modes, scenario);
  Workspaces work;
  Searched out;
  out.result = Baseline(s, c);
  out.start_cost = out.result.cost_usd;
  NeighbourhoodOptions options;
  options.seed = 3;
  const auto far = std::chrono::steady_clock::now() + std::chrono::hours(1);
  absl::StatusOr<NeighbourhoodStats> stats = PortfolioNeighbourhoodSearch(
      c, work, out.result, {}, options, streams, threads, far, [](double) { return false; });
  REQUIRE(stats.ok());
  out.stats = *stats;
  return out;
}

TEST_CASE("Portfolio search: one stream is the plain search", "[dispatch]") {
  const Start s = Load("small_3job_12slot.json");
  const ScenarioContext c = MakeContext(s.instance, s.modes, Scenario::kS6);
  Workspaces work;
  Evaluated plain = Baseline(s, c);
  NeighbourhoodOptions options;
  options.seed = 3;
  const auto far = std::chrono::steady_clock::now() + std::chrono::hours(1);
  absl::StatusOr<NeighbourhoodStats> stats =
      ImproveByNeighbourhoodSearch(c, work, plain, {}, options, far, [](double) { return false; });
  REQUIRE(stats.ok());
  const Searched one = Run(s, Scenario::kS6, 1, 2);
  CHECK(one.result.schedule == plain.schedule);
  CHECK(one.result.cost_usd == plain.cost_usd);
  CHECK(one.stats.rounds == stats->rounds);
}

TEST_CASE("Portfolio search: the same schedule on 1, 2 and 4 threads", "[dispatch]") {
  for (const char* file : {"small_3job_12slot.json", "small_limits_10slot.json"}) {
    const Start s = Load(file);
    for (Scenario scenario : {Scenario::kS4, Scenario::kS6}) {
      INFO(file << " " << ScenarioName(scenario));
      const Searched one = Run(s, scenario, 3, 1);
      CHECK(one.result.feasible);
      CHECK(one.result.cost_usd < one.start_cost);
      // Every stream has the single search's stall budget: at least that many rounds each.
      CHECK(one.stats.rounds >= 3 * NeighbourhoodOptions{}.stall_rounds);
      // The cost it reports is its schedule's.
      const ScenarioContext c = MakeContext(s.instance, s.modes, scenario);
      absl::StatusOr<Evaluated> again = Evaluate(c, one.result.schedule);
      REQUIRE(again.ok());
      CHECK(again->feasible);
      CHECK(again->cost_usd == Approx(one.result.cost_usd).epsilon(1e-12));
      for (int threads : {2, 4}) {
        INFO(threads << " threads");
        const Searched many = Run(s, scenario, 3, threads);
        CHECK(many.result.schedule == one.result.schedule);
        CHECK(many.result.cost_usd == one.result.cost_usd);
        CHECK(many.stats.rounds == one.stats.rounds);
        CHECK(many.stats.improvements == one.stats.improvements);
      }
    }
  }
}

TEST_CASE("Portfolio search: the streams' and neighbourhoods' rules", "[dispatch]") {
  CHECK(ResolveSearchStreams(3, 1) == 3);
  CHECK(ResolveSearchStreams(1, 4096) == 1);
  CHECK(ResolveSearchStreams(0, kFleetSearchMinJobs - 1) == 1);
  CHECK(ResolveSearchStreams(0, kFleetSearchMinJobs) == 2);
  const int plain = NeighbourhoodOptions{}.max_removed;
  for (bool battery : {false, true}) {
    CHECK(ResolveNeighbourhoodSize(4, 128, battery) == 4);
    CHECK(ResolveNeighbourhoodSize(1, 128, battery) == 2);  // a round moves two jobs at least
    CHECK(ResolveNeighbourhoodSize(0, kFleetSearchMinJobs - 1, battery) == plain);
  }
  CHECK(ResolveNeighbourhoodSize(0, kFleetSearchMinJobs, false) == kFleetNeighbourhoodSize);
  CHECK(ResolveNeighbourhoodSize(0, kFleetSearchMinJobs, true) == plain);
}

}  // namespace
}  // namespace ckptdp::internal
