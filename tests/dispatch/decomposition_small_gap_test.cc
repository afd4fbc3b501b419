// Where the decomposition's root gap on small_3job_12slot sits (issue 13; docs/
// benchmarks.md, "Why small_3job_12slot S6 stays 3 % below its optimum"): the
// decomposition with some jobs' copies fixed at the optimum's choices. Every such bound is
// at most the optimum (it bounds the schedules through those choices, the optimum among
// them), and fixing LLM-7B alone closes the gap: the battery and the slot side are tight at
// the optimum's levels, so what the free decomposition loses is its freedom over the
// jobs' paths.
#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "ckptdp/engine.h"
#include "dispatch/internal/decomposition.h"
#include "dispatch/internal/dual.h"
#include "dispatch/internal/solver_log.h"
#include "support/instance_modes.h"
#include "support/root_lagrangian.h"

namespace ckptdp::internal {
namespace {

using Clock = std::chrono::steady_clock;

// The decomposition bound as the engine runs it at the root (the net power's copy first,
// then the battery DP of the slot side from its prices), with the jobs in `fixed`
// restricted to the levels of `optimum`.
double RestrictedBound(const ScenarioContext& c, const std::vector<double>& lambda,
                       const std::vector<double>& mu, const Schedule& optimum,
                       const std::vector<int>& fixed, double target) {
  DecompositionOptions options;
  options.battery_cells = 25;
  options.battery_slot_copy = true;
  std::optional<DecompositionBound> d = DecompositionBound::Build(c, options);
  REQUIRE(d.has_value());
  std::vector<SlotRestriction> restrictions;
  for (int j : fixed) {
    const std::vector<int> level_of_mode = ModeLevels(*c.jobs[j]);
    std::vector<int> level(c.slots(), 0);
    for (const Run& r : optimum.jobs[j]) {
      for (int t = r.start_slot; t < r.end_slot; ++t) {
        level[t] = level_of_mode[c.graph_mode_of[j][r.mode]];
      }
    }
    const Job& job = c.instance->jobs[j];
    for (int t = job.release_slot; t < job.deadline_slot; ++t) {
      restrictions.push_back({j, t, level[t] - 1, level[t]});
    }
  }
  d->Restrict(restrictions);
  DecompositionOptions volume;
  volume.max_iterations = 2000;
  volume.gap = 0;
  double bound = -1e300;
  DecompositionPrices prices = d->FromLagrangian(lambda, mu);
  for (bool battery_slot : {false, true}) {
    if (battery_slot && d->battery_cells() == 0) break;  // S4: no battery
    d->UseBatterySlot(battery_slot);
    const absl::StatusOr<std::optional<DecompositionOutcome>> run =
        MaximiseDecompositionDual(*d, prices, target, volume, Clock::time_point::max());
    REQUIRE(run.ok());
    REQUIRE(run->has_value());
    bound = std::max(bound, (*run)->bound);
    prices = (*run)->prices;
  }
  return bound;
}

TEST_CASE("decomposition gap on small_3job_12slot: fixing LLM-7B at the optimum closes it",
          "[decomp]") {
  const testing::InstanceModes loaded = testing::LoadInstanceModes("small_3job_12slot.json");
  const Instance& in = loaded.instance;
  const std::vector<JobModes>& modes = loaded.modes;
  // CBC's optima (docs/benchmarks.md), 4 decimals.
  const std::pair<Scenario, double> cases[] = {{Scenario::kS4, 13.5850}, {Scenario::kS6, 11.3837}};
  for (const auto& [scenario, cbc] : cases) {
    INFO(ScenarioName(scenario));
    SolveOptions options;
    options.threads = 1;
    const absl::StatusOr<Result> solved = SolveScenario(in, scenario, options);
    REQUIRE(solved.ok());
    REQUIRE(solved->status == SolveStatus::kOptimal);
    const double optimum = solved->objective_usd;
    CHECK(optimum == Approx(cbc).margin(1e-4));
    ScenarioContext c = MakeContext(in, modes, scenario);
    Workspaces work;
    const absl::StatusOr<EngineOutcome> lagrangian = testing::RootLagrangian(c, work);
    REQUIRE(lagrangian.ok());
    // Jobs 0, 1, 2: LLM-7B, LLM-3B, LLM-1B.
    const std::vector<std::vector<int>> subsets = {{}, {1}, {2}, {1, 2}, {0}, {0, 1, 2}};
    for (const std::vector<int>& fixed : subsets) {
      const double bound =
          RestrictedBound(c, lagrangian->multipliers.lambda, lagrangian->multipliers.mu,
                          solved->schedule, fixed, optimum);
      std::string jobs;
      for (int j : fixed) jobs += in.jobs[j].name + " ";
      INFO("fixed at the optimum: " << (jobs.empty() ? "none" : jobs) << "; bound " << bound << ", "
                                    << 100 * (optimum - bound) / optimum << " % below the optimum");
      // Valid: the optimum is among the schedules through the fixed choices.
      CHECK(bound <= optimum + 1e-6);
      // The finding: with LLM-7B's path fixed at the optimum's, the decomposition
      // (in S6 the battery's copy and the slot side's battery DP included) reaches the
      // optimum, up to its finite volume iterations: S6 has at least two optimal schedules
      // of the same cost (11.383712 USD) that differ in LLM-7B's and LLM-3B's paths, and
      // which one the solve returns depends on its search. With the one solves returned
      // before session 20 the bound came within 1e-4 of the optimum, with the other within
      // 1.04e-4.
      if (!fixed.empty() && fixed.front() == 0) CHECK(RelativeGap(optimum, bound) <= 1.5e-4);
    }
  }
}

}  // namespace
}  // namespace ckptdp::internal
