// The battery screen (battery_screen.h): its bound equals the cost at the dispatch it was
// built from, stays below the exact cost of every other load, and the neighbourhood search
// takes the same path with the screen as without it, with fewer full evaluations.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <vector>

#include "dispatch/internal/baseline.h"
#include "dispatch/internal/battery_screen.h"
#include "dispatch/internal/neighbourhood.h"
#include "support/paths.h"

namespace ckptdp::internal {
namespace {

struct Loaded {
  Instance instance;
  std::vector<JobModes> modes;
};

Loaded Load(const std::string& file) {
  absl::StatusOr<Instance> in = LoadInstance(testing::SourcePath("instances/" + file));
  REQUIRE(in.ok());
  absl::StatusOr<std::vector<JobModes>> modes = BuildAllModes(*in);
  REQUIRE(modes.ok());
  return {*in, *modes};
}

double Cost(const PowerInputs& inputs, const std::vector<double>& aidc_kw) {
  absl::StatusOr<PowerDispatch> d = DispatchFixedLoad(inputs, aidc_kw);
  REQUIRE(d.ok());
  return d->TotalCostUsd();
}

// A load drawn between 0 and the site cap in every slot.
std::vector<double> RandomLoad(const Instance& in, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> share(0.0, 1.0);
  std::vector<double> load(in.time.slots);
  for (double& l : load) l = share(rng) * in.site.site_power_cap_kw;
  return load;
}

TEST_CASE("The battery screen's bound is the cost at its dispatch and below it elsewhere",
          "[dispatch]") {
  for (const std::string file : {"paper_2048gpu.json", "small_3job_12slot.json",
                                 "small_2job_8slot.json", "paper_week.json"}) {
    INFO(file);
    const Loaded s = Load(file);
    const PowerInputs inputs = PowerInputs::FromInstance(s.instance, /*use_battery=*/true);
    REQUIRE_FALSE(inputs.HasGridContract());
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> share(0.0, 1.0);
    // Dispatches of random loads (the battery at its limits and between them), then loads
    // changed from each in a few slots, as a search move changes them, or in all.
    for (int base_draw = 0; base_draw < 20; ++base_draw) {
      const std::vector<double> base = RandomLoad(s.instance, rng);
      absl::StatusOr<PowerDispatch> dispatch = DispatchFixedLoad(inputs, base);
      REQUIRE(dispatch.ok());
      const std::optional<BatteryLoadBound> bound = BatteryLoadBound::Build(inputs, *dispatch);
      REQUIRE(bound.has_value());
      const double cost = dispatch->TotalCostUsd();
      // Complementary slackness: at its own dispatch the bound is the cost.
      CHECK(bound->base_usd() == Approx(cost).epsilon(1e-9).margin(1e-9));
      CHECK(bound->LowerBoundUsd(base) == bound->base_usd());
      for (int move = 0; move < 30; ++move) {
        std::vector<double> load = base;
        if (move % 10 == 9) {
          load = RandomLoad(s.instance, rng);
        } else {
          std::uniform_int_distribution<int> slot(0, s.instance.time.slots - 1);
          for (int k = 0; k < 1 + move % 4; ++k) {
            load[slot(rng)] = share(rng) * s.instance.site.site_power_cap_kw;
          }
        }
        const double exact = Cost(inputs, load);
        CHECK(bound->LowerBoundUsd(load) <= exact + 1e-9 * std::max(1.0, std::abs(exact)));
      }
    }
  }
}

TEST_CASE("The battery screen does not apply without a battery or with a grid contract",
          "[dispatch]") {
  const Loaded paper = Load("paper_2048gpu.json");
  const PowerInputs plain = PowerInputs::FromInstance(paper.instance, /*use_battery=*/false);
  const std::vector<double> load(paper.instance.time.slots, 1000.0);
  absl::StatusOr<PowerDispatch> d = DispatchFixedLoad(plain, load);
  REQUIRE(d.ok());
  CHECK_FALSE(BatteryLoadBound::Build(plain, *d).has_value());
  const Loaded carbon = Load("paper_2048gpu_carbon.json");
  const PowerInputs contract = PowerInputs::FromInstance(carbon.instance, /*use_battery=*/true);
  REQUIRE(contract.HasGridContract());
  absl::StatusOr<PowerDispatch> dc = DispatchFixedLoad(contract, load);
  REQUIRE(dc.ok());
  CHECK_FALSE(BatteryLoadBound::Build(contract, *dc).has_value());
}

TEST_CASE("The S6 neighbourhood search takes the same path with and without the screen",
          "[dispatch]") {
  for (const std::string file : {"small_3job_12slot.json", "paper_2048gpu.json"}) {
    const Loaded s = Load(file);
    const ScenarioContext c = MakeContext(s.instance, s.modes, Scenario::kS6);
    const BaselinePlan plan = BaselineSchedule(s.instance, s.modes, /*record_checkpoints=*/true);
    REQUIRE(plan.infeasible_reason.empty());
    for (std::uint64_t seed : {1, 2, 3}) {
      INFO(file << " seed " << seed);
      NeighbourhoodStats stats[2];
      std::optional<Evaluated> result[2];
      for (int screened = 0; screened < 2; ++screened) {
        Workspaces work;
        absl::StatusOr<Evaluated> e = Evaluate(c, plan.schedule);
        REQUIRE(e.ok());
        NeighbourhoodOptions options;
        options.seed = seed;
        options.screen_moves = screened == 1;
        const auto far = std::chrono::steady_clock::now() + std::chrono::hours(1);
        absl::StatusOr<NeighbourhoodStats> st = ImproveByNeighbourhoodSearch(
            c, work, *e, {}, options, far, [](double) { return false; });
        REQUIRE(st.ok());
        stats[screened] = *st;
        result[screened] = *std::move(e);
      }
      CHECK(result[1]->schedule == result[0]->schedule);
      CHECK(result[1]->cost_usd == result[0]->cost_usd);
      CHECK(stats[1].rounds == stats[0].rounds);
      CHECK(stats[1].improvements == stats[0].improvements);
      CHECK(stats[1].evaluations < stats[0].evaluations);
    }
  }
}

}  // namespace
}  // namespace ckptdp::internal
