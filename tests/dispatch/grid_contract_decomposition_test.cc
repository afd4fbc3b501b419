// The decomposition bound with the grid contract's multipliers (decomposition.h: the peak
// multipliers nu_t and the green floor's mu as dual variables): on small instances it never
// exceeds CBC's optimum on the exported model, at any multipliers of their set, and the
// multipliers add to the bound (the charge and the floor are priced, not left out).
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <random>
#include <string>

#include "ckptdp/engine.h"
#include "ckptdp/export.h"
#include "ckptdp/modes.h"
#include "dispatch/internal/decomposition.h"
#include "dispatch/internal/lagrangian.h"
#include "dispatch/internal/solver_log.h"
#include "support/cbc.h"
#include "support/paths.h"
#include "support/root_lagrangian.h"

namespace ckptdp::internal {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

Instance Small() {
  absl::StatusOr<Instance> in =
      LoadInstance(testing::SourcePath("instances/small_2job_8slot.json"));
  REQUIRE(in.ok());
  return *in;
}

TEST_CASE("grid contract decomposition: the bound with nu and mu stays below CBC's optimum",
          "[grid_contract]") {
  const std::string cbc = testing::CbcPath();
  if (cbc.empty()) FAIL("cbc is not on PATH: run tools/install-deps.sh (Debian's coinor-cbc)");
  const fs::path dir =
      fs::temp_directory_path() / ("ckptdp_contract_decomp_" + std::to_string(getpid()));
  fs::create_directories(dir);
  struct Case {
    std::string name;
    Scenario scenario;
    double charge, floor_pct;
  };
  // The small instance's S4 green share is 96.54 % without a floor: 97 % binds.
  const Case cases[] = {{"demand charge S4", Scenario::kS4, 0.05, 0},
                        {"demand charge S6", Scenario::kS6, 0.05, 0},
                        {"green floor S4", Scenario::kS4, 0, 97},
                        {"both S6", Scenario::kS6, 0.05, 97}};
  std::mt19937 rng(19);
  for (const Case& k : cases) {
    INFO(k.name);
    Instance in = Small();
    in.grid.demand_charge_usd_per_kw = k.charge;
    in.grid.peak_so_far_kw = k.charge > 0 ? 2 : 0;
    in.grid.min_green_share_pct = k.floor_pct;
    absl::StatusOr<std::vector<JobModes>> modes = BuildAllModes(in);
    REQUIRE(modes.ok());
    absl::StatusOr<MilpModel> model = BuildMilp(in, k.scenario, *modes);
    REQUIRE(model.ok());
    const MilpSolution best = testing::SolveWithCbc(cbc, *model, dir, "contract");
    REQUIRE(best.optimal);
    const double optimum = best.objective;
    const double tol = 1e-6 * std::max(1.0, std::abs(optimum));

    ScenarioContext c = MakeContext(in, *modes, k.scenario);
    Workspaces work;
    const absl::StatusOr<EngineOutcome> lagrangian = testing::RootLagrangian(c, work);
    REQUIRE(lagrangian.ok());
    REQUIRE(lagrangian->incumbent.has_value());
    std::optional<DecompositionBound> d = DecompositionBound::Build(c, DecompositionOptions{});
    REQUIRE(d.has_value());
    const size_t peak_coords = k.charge > 0 ? c.slots() : 0;
    const size_t coords = peak_coords + (k.floor_pct > 0 ? 1 : 0);
    REQUIRE(d->contract_units().size() == coords);

    DecompositionPrices pi0 =
        d->FromLagrangian(lagrangian->multipliers.lambda, lagrangian->multipliers.mu);
    DecompositionPoint point;
    REQUIRE(d->Evaluate(pi0, point));
    const double left_out = point.value;  // the contract multipliers at 0
    REQUIRE(d->StartContract(lagrangian->incumbent->power, pi0));
    REQUIRE(d->StartGreenPrice(pi0));
    DecompositionPoint start;
    REQUIRE(d->Evaluate(pi0, start));
    CHECK(start.value >= left_out - 1e-12);  // both starts keep the better point
    DecompositionOptions volume;
    volume.max_iterations = 1500;
    volume.gap = 0;  // push as far as it goes: a bound above the optimum would show
    const absl::StatusOr<std::optional<DecompositionOutcome>> run =
        RunVolumeAlgorithm(*d, pi0, optimum, volume, Clock::time_point::max());
    REQUIRE(run.ok());
    REQUIRE(run->has_value());
    const DecompositionOutcome& out = **run;
    INFO("CBC " << optimum << ", decomposition " << out.bound << ", Lagrangian "
                << lagrangian->lower_bound);
    CHECK(out.bound <= optimum + tol);
    // The multipliers stay in their set.
    double sum_nu = 0;
    for (size_t i = 0; i < coords; ++i) CHECK(out.prices.contract[i] >= 0);
    for (size_t t = 0; t < peak_coords; ++t) sum_nu += out.prices.contract[t];
    CHECK(sum_nu <= k.charge + 1e-12);
    // Never below the start with the contract left out. Without a battery the slot side
    // is exact and the multipliers add to the bound; with one, the battery's copy lets the
    // slot side import little at any nu (decomposition.h: the copy is weak on small S6).
    CHECK(out.bound >= left_out - tol);
    DecompositionPrices without = out.prices;
    std::fill(without.contract.begin(), without.contract.end(), 0.0);
    REQUIRE(d->Evaluate(without, point));
    if (k.scenario == Scenario::kS4) CHECK(point.value < out.bound - tol);
    // Weak duality at any multipliers of the set: random job, battery and contract prices.
    for (int draw = 0; draw < 20; ++draw) {
      DecompositionPrices pi = out.prices;
      std::normal_distribution<double> noise(0.0, 0.05);
      for (auto& row : pi.job) {
        for (double& p : row) p += noise(rng);
      }
      for (double& p : pi.battery) p += noise(rng) / 10;
      std::uniform_real_distribution<double> share(0.0, 1.0);
      // nu_t up to 0.02 USD/kW each (the projection caps their sum), mu up to 50 USD/MWh.
      for (size_t i = 0; i < coords; ++i)
        pi.contract[i] = share(rng) * (i < peak_coords ? 0.02 : 50);
      d->ProjectContract(pi.contract);
      REQUIRE(d->Evaluate(pi, point));
      CHECK(point.value <= optimum + tol);
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ckptdp::internal
