// The TOU reading of the paper day (issue 18, tools/build-paper-day.py --tou,
// docs/reproduction.md): same renewable day as the LMP instance, price piecewise constant over
// SDG&E's summer weekday TOU periods, S1 still at Table IV's cost.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <vector>

#include "ckptdp/instance.h"
#include "support/paths.h"

namespace ckptdp {
namespace {

Instance Load(const char* relative) {
  absl::StatusOr<Instance> in = LoadInstance(testing::SourcePath(relative));
  INFO(in.status().ToString());
  REQUIRE(in.ok());
  return *std::move(in);
}

// Slots of each period (slot t = clock hour [t, t+1), Pacific time): super off-peak
// 00-06, off-peak 06-16 and 21-24, on-peak 16-21.
std::vector<std::vector<int>> TouPeriodSlots() {
  std::vector<int> super_off, off, on;
  for (int t = 0; t < 24; ++t) {
    if (t < 6) {
      super_off.push_back(t);
    } else if (t >= 16 && t < 21) {
      on.push_back(t);
    } else {
      off.push_back(t);
    }
  }
  return {super_off, off, on};
}

TEST_CASE("paper TOU instance: the LMP day's renewables, a piecewise-constant TOU price",
          "[instance]") {
  const Instance tou = Load("instances/paper_2048gpu_tou.json");
  const Instance lmp = Load("instances/paper_2048gpu.json");
  CHECK(tou.name == "paper_2048gpu_tou");
  REQUIRE(tou.time.slots == 24);
  REQUIRE(tou.time.step_minutes == 60);
  CHECK(tou.series.pv_kw == lmp.series.pv_kw);
  CHECK(tou.series.wind_kw == lmp.series.wind_kw);
  CHECK(tou.site.gpu_capacity == lmp.site.gpu_capacity);
  REQUIRE(tou.jobs.size() == lmp.jobs.size());
  for (size_t j = 0; j < tou.jobs.size(); ++j) CHECK(tou.jobs[j].name == lmp.jobs[j].name);

  const std::vector<double>& price = tou.series.price_usd_per_mwh;
  std::vector<double> levels;
  for (const std::vector<int>& slots : TouPeriodSlots()) {
    for (int t : slots) {
      INFO("slot " << t);
      CHECK(price[t] == price[slots.front()]);
    }
    levels.push_back(price[slots.front()]);
  }
  // Three distinct levels, on-peak the highest; the LMP price is not piecewise constant.
  CHECK(std::set<double>(levels.begin(), levels.end()).size() == 3);
  CHECK(levels[2] > std::max(levels[0], levels[1]));
  CHECK(std::set<double>(lmp.series.price_usd_per_mwh.begin(), lmp.series.price_usd_per_mwh.end())
            .size() > 3);
}

TEST_CASE("paper TOU instance: the fixed baseline S1 costs Table IV's 473.03 USD", "[instance]") {
  const Instance tou = Load("instances/paper_2048gpu_tou.json");
  // S1 draws a constant 375 + 1.25 * 0.4 * 1280 = 1015 kW (docs/model.md).
  const double load_kw = 1015.0;
  double cost = 0.0;
  for (int t = 0; t < tou.time.slots; ++t) {
    const double renewable = tou.series.pv_kw[t] + tou.series.wind_kw[t];
    const double grid_mwh = std::max(0.0, load_kw - renewable) / 1000.0;
    const double curtailed_mwh = std::max(0.0, renewable - load_kw) / 1000.0;
    cost += tou.series.price_usd_per_mwh[t] * grid_mwh +
            tou.costs.curtailment_usd_per_mwh * curtailed_mwh;
  }
  CHECK(cost == Approx(473.03).margin(0.005));
}

}  // namespace
}  // namespace ckptdp
