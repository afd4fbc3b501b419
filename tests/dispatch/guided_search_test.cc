// The heuristics guided by the relaxation (issue 21): x-bar averages the relaxed paths,
// diving on it gives feasible schedules, and the relaxation-induced neighbourhoods keep
// the search feasible, never worse and reproducible.
#include <catch2/catch.hpp>

#include <chrono>

#include "dispatch/internal/baseline.h"
#include "dispatch/internal/dual.h"
#include "dispatch/internal/guided_search.h"
#include "dispatch/internal/neighbourhood.h"
#include "support/instance_modes.h"

namespace ckptdp::internal {
namespace {

using Fixture = testing::InstanceModes;
constexpr auto Load = testing::LoadInstanceModes;

const auto kFar = std::chrono::steady_clock::now() + std::chrono::hours(1);

// Relaxed paths at a few price vectors, averaged: a stand-in for the Lagrangian phase.
Multipliers AverageOfRelaxedPaths(const ScenarioContext& c, Workspaces& work,
                                  RelaxedAverage& average) {
  DualEvaluator dual(c, work, 1);
  Multipliers prices{std::vector<double>(c.slots()), std::vector<double>(c.slots())};
  for (int round = 0; round < 4; ++round) {
    for (int t = 0; t < c.slots(); ++t) {
      prices.lambda[t] = c.instance->series.price_usd_per_mwh[t] / 1000.0 * (1 + 0.1 * round);
      prices.mu[t] = 0.001 * ((t + round) % 3);
    }
    absl::StatusOr<DualEvaluator::Outcome> o = dual.Evaluate(prices, {}, kFar);
    REQUIRE(o.ok());
    REQUIRE(*o == DualEvaluator::Outcome::kOk);
    average.Add(c, dual.plans());
  }
  return prices;
}

Evaluated Baseline(const Fixture& f, const ScenarioContext& c) {
  const BaselinePlan plan = BaselineSchedule(f.instance, f.modes, /*record_checkpoints=*/true);
  REQUIRE(plan.infeasible_reason.empty());
  absl::StatusOr<Evaluated> e = Evaluate(c, plan.schedule);
  REQUIRE(e.ok());
  REQUIRE(e->feasible);
  return *e;
}

TEST_CASE("x-bar is the weighted share of relaxed paths that train in a slot", "[dispatch]") {
  const Fixture f = Load("small_3job_12slot.json");
  const ScenarioContext c = MakeContext(f.instance, f.modes, Scenario::kS4);
  Workspaces work;
  RelaxedAverage average;
  CHECK(average.empty());
  AverageOfRelaxedPaths(c, work, average);
  REQUIRE(!average.empty());
  for (int j = 0; j < c.num_jobs(); ++j) {
    for (int t = 0; t < c.slots(); ++t) {
      CHECK(average.Share(j, t) >= 0.0);
      CHECK(average.Share(j, t) <= 1.0 + 1e-12);
    }
  }
  // One plan added to an empty average: the share is 1 where it trains, 0 elsewhere, and
  // a schedule made of these plans does not disagree with it.
  DualEvaluator dual(c, work, 1);
  const Multipliers flat{std::vector<double>(c.slots(), 0.05), std::vector<double>(c.slots(), 0.0)};
  absl::StatusOr<DualEvaluator::Outcome> o = dual.Evaluate(flat, {}, kFar);
  REQUIRE(o.ok());
  RelaxedAverage one;
  one.Add(c, dual.plans());
  Schedule same;
  for (const PathSolution& p : dual.plans()) same.jobs.push_back(p.runs);
  for (double d : one.Disagreement(c, same)) CHECK(d == 0.0);
  for (int j = 0; j < c.num_jobs(); ++j) {
    int trained = 0;
    for (int t = 0; t < c.slots(); ++t) {
      trained += one.Share(j, t) == 1.0 ? 1 : 0;
      CHECK((one.Share(j, t) == 0.0 || one.Share(j, t) == 1.0));
    }
    int in_runs = 0;
    for (const Run& r : same.jobs[j]) in_runs += r.end_slot - r.start_slot;
    CHECK(trained == in_runs);
  }
}

TEST_CASE("Diving on x-bar gives feasible schedules and never a worse incumbent", "[dispatch]") {
  for (const char* file : {"small_3job_12slot.json", "small_limits_10slot.json"}) {
    const Fixture f = Load(file);
    for (Scenario scenario : {Scenario::kS4, Scenario::kS6}) {
      INFO(file << " " << ScenarioName(scenario));
      const ScenarioContext c = MakeContext(f.instance, f.modes, scenario);
      Workspaces work;
      RelaxedAverage average;
      const Multipliers prices = AverageOfRelaxedPaths(c, work, average);
      const std::optional<Schedule> dive = DiveOnAverage(c, work, average, prices, 0.5, 1.0, kFar);
      REQUIRE(dive.has_value());
      absl::StatusOr<Evaluated> e = Evaluate(c, *dive);
      REQUIRE(e.ok());
      CHECK(e->feasible);
      Evaluated incumbent = Baseline(f, c);
      const double before = incumbent.cost_usd;
      absl::StatusOr<int> better = ImproveByDiving(c, work, average, prices, kFar, 1, incumbent);
      REQUIRE(better.ok());
      CHECK(incumbent.feasible);
      CHECK(incumbent.cost_usd <= before);
      CHECK((*better > 0) == (incumbent.cost_usd < before));
      absl::StatusOr<Evaluated> again = Evaluate(c, incumbent.schedule);
      REQUIRE(again.ok());
      CHECK(again->cost_usd == Approx(incumbent.cost_usd).epsilon(1e-12));
    }
  }
}

TEST_CASE("Relaxation-induced neighbourhoods keep the search feasible and reproducible",
          "[dispatch]") {
  const Fixture f = Load("small_3job_12slot.json");
  for (Scenario scenario : {Scenario::kS4, Scenario::kS6}) {
    INFO(ScenarioName(scenario));
    const ScenarioContext c = MakeContext(f.instance, f.modes, scenario);
    std::vector<Evaluated> runs;
    for (int repeat = 0; repeat < 2; ++repeat) {
      Workspaces work;
      RelaxedAverage average;
      const Multipliers prices = AverageOfRelaxedPaths(c, work, average);
      Evaluated e = Baseline(f, c);
      const double start = e.cost_usd;
      NeighbourhoodOptions options;
      options.guide = &average;
      options.seed = 3;
      absl::StatusOr<NeighbourhoodStats> stats = ImproveByNeighbourhoodSearch(
          c, work, e, prices, options, kFar, [](double) { return false; });
      REQUIRE(stats.ok());
      CHECK(stats->evaluations <= stats->rounds);
      CHECK(e.feasible);
      CHECK(e.cost_usd < start);
      absl::StatusOr<Evaluated> again = Evaluate(c, e.schedule);
      REQUIRE(again.ok());
      CHECK(again->feasible);
      CHECK(again->cost_usd == Approx(e.cost_usd).epsilon(1e-12));
      runs.push_back(std::move(e));
    }
    CHECK(runs[0].schedule == runs[1].schedule);
    CHECK(runs[0].cost_usd == runs[1].cost_usd);
  }
}

}  // namespace
}  // namespace ckptdp::internal
