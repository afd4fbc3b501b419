// Joint re-optimisation of 2-3 jobs with the others fixed (issue 21): it never makes the
// incumbent worse, its schedules pass the checker, it finds the optimum of a 3-job
// instance from a bad start, and the search that uses it does not depend on the threads.
#include <catch2/catch.hpp>

#include <random>

#include "ckptdp/check.h"
#include "ckptdp/engine.h"
#include "ckptdp/report.h"
#include "dispatch/internal/baseline.h"
#include "dispatch/internal/pair_reoptimisation.h"
#include "support/instance_modes.h"

namespace ckptdp::internal {
namespace {

using Fixture = testing::InstanceModes;
constexpr auto Load = testing::LoadInstanceModes;

// The fixed baseline (S1's trajectory): feasible for S4 and S6, and far from optimal.
Evaluated Baseline(const Fixture& f, const ScenarioContext& c) {
  const BaselinePlan plan = BaselineSchedule(f.instance, f.modes, /*record_checkpoints=*/true);
  REQUIRE(plan.infeasible_reason.empty());
  absl::StatusOr<Evaluated> e = Evaluate(c, plan.schedule);
  REQUIRE(e.ok());
  REQUIRE(e->feasible);
  return *e;
}

TEST_CASE("Re-optimising groups of jobs never makes the incumbent worse", "[dispatch]") {
  for (const char* file : {"small_3job_12slot.json", "gen_8jobs_48h.json"}) {
    const Fixture f = Load(file);
    for (Scenario scenario : {Scenario::kS4, Scenario::kS6}) {
      INFO(file << " " << ScenarioName(scenario));
      const ScenarioContext c = MakeContext(f.instance, f.modes, scenario);
      Workspaces work;
      Evaluated e = Baseline(f, c);
      const double start = e.cost_usd;
      std::mt19937_64 rng(7);
      int improved = 0;
      for (int round = 0; round < 12; ++round) {
        const double before = e.cost_usd;
        const std::vector<int> group =
            PickInteractingGroup(c, e, std::vector<double>(c.num_jobs(), 1.0), rng);
        REQUIRE(!group.empty());
        REQUIRE(group.size() <= 3);
        absl::StatusOr<GroupReoptimisation> r =
            ReoptimiseGroup(c, work, e, group, GroupReoptimisationOptions{});
        REQUIRE(r.ok());
        CHECK(e.feasible);
        CHECK(e.cost_usd <= before);
        CHECK(r->improved == (e.cost_usd < before));
        // The master only accepts what it can do at least as cheaply as the incumbent.
        CHECK(r->group_cost <= r->incumbent_cost + 1e-9 * std::max(1.0, r->incumbent_cost));
        if (r->proven) CHECK(r->group_bound <= r->group_cost + 1e-6 * std::max(1.0, r->group_cost));
        improved += r->improved ? 1 : 0;
      }
      // From the fixed baseline, the joint moves find something better.
      CHECK(improved > 0);
      CHECK(e.cost_usd < start);
      absl::StatusOr<Evaluated> again = Evaluate(c, e.schedule);
      REQUIRE(again.ok());
      CHECK(again->feasible);
      CHECK(again->cost_usd == Approx(e.cost_usd).epsilon(1e-12));
    }
  }
}

TEST_CASE("Re-optimising all three jobs of a small instance finds the optimum", "[dispatch]") {
  const Fixture f = Load("small_3job_12slot.json");
  SolveOptions options;
  options.threads = 1;
  absl::StatusOr<Result> full = SolveScenario(f.instance, Scenario::kS4, options);
  REQUIRE(full.ok());
  REQUIRE(full->status == SolveStatus::kOptimal);
  const ScenarioContext c = MakeContext(f.instance, f.modes, Scenario::kS4);
  Workspaces work;
  Evaluated e = Baseline(f, c);
  REQUIRE(e.cost_usd > full->objective_usd * (1 + 1e-3));  // a bad start
  absl::StatusOr<GroupReoptimisation> r =
      ReoptimiseGroup(c, work, e, {0, 1, 2}, GroupReoptimisationOptions{});
  REQUIRE(r.ok());
  CHECK(r->improved);
  CHECK(e.cost_usd == Approx(full->objective_usd).epsilon(1e-4));
  // The group's dual is a lower bound on what the group can reach (no battery).
  CHECK(r->group_bound <= r->group_cost + 1e-6 * std::max(1.0, r->group_cost));
}

TEST_CASE("A search with joint re-optimisation passes the checker and ignores the threads",
          "[engine]") {
  for (const char* file : {"small_3job_12slot.json", "gen_8jobs_48h.json"}) {
    const Fixture f = Load(file);
    for (Scenario scenario : {Scenario::kS4, Scenario::kS6}) {
      INFO(file << " " << ScenarioName(scenario));
      std::vector<Result> results;
      for (int threads : {1, 2, 8}) {
        SolveOptions options;
        options.threads = threads;
        options.max_iterations = 30;
        options.max_nodes = 0;
        options.decomposition_iterations = 0;
        options.reoptimise_every = 2;
        options.diagnose_capacity = false;
        absl::StatusOr<Result> r = SolveScenario(f.instance, scenario, options);
        REQUIRE(r.ok());
        REQUIRE(r->status != SolveStatus::kTimeLimit);
        absl::StatusOr<CheckReport> check =
            CheckResult(f.instance, ResultToJson(f.instance, f.modes, *r));
        REQUIRE(check.ok());
        CHECK(check->ok());
        results.push_back(*r);
      }
      for (size_t i = 1; i < results.size(); ++i) {
        CHECK(results[i].schedule == results[0].schedule);
        CHECK(results[i].objective_usd == results[0].objective_usd);
        CHECK(results[i].lower_bound_usd == results[0].lower_bound_usd);
      }
    }
  }
}

}  // namespace
}  // namespace ckptdp::internal
