// Table IV metrics on a hand-built 3-slot dispatch; every expected number is computed by
// hand in the comments so a reader can check the definitions without running anything.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "ckptdp/result.h"

namespace ckptdp {
namespace {

// dt = 0.5 h; renewable 150, 300, 20 kW; prices 40, 100, 60 USD/MWh; c_cur 20, c_bat 10.
Instance ThreeSlotInstance() {
  Instance instance;
  instance.name = "three-slot";
  instance.time.step_minutes = 30;
  instance.time.slots = 3;
  instance.site.base_load_kw = 100;
  instance.site.pue = 1.25;
  instance.series.pv_kw = {100, 300, 0};
  instance.series.wind_kw = {50, 0, 20};
  instance.series.price_usd_per_mwh = {40, 100, 60};
  instance.costs.curtailment_usd_per_mwh = 20;
  instance.costs.battery_wear_usd_per_mwh = 10;
  return instance;
}

// Balanced slots: used + grid + discharge = aidc + charge, used + curtailment = renewable.
PowerDispatch ThreeSlotDispatch() {
  PowerDispatch power;
  power.slots = {
      {.aidc_kw = 400, .renewable_used_kw = 150, .curtailment_kw = 0, .grid_kw = 250},
      {.aidc_kw = 200,
       .renewable_used_kw = 250,
       .curtailment_kw = 50,
       .grid_kw = 0,
       .charge_kw = 50},
      {.aidc_kw = 500,
       .renewable_used_kw = 20,
       .curtailment_kw = 0,
       .grid_kw = 430,
       .discharge_kw = 50},
  };
  return power;
}

// aidc = 100 + 1.25 * train IT: 400, 200, 500 kW.
SlotLoad ThreeSlotLoad() {
  return SlotLoad{
      .gpus = {512, 0, 1024}, .train_it_kw = {240, 80, 320}, .aidc_kw = {400, 200, 500}};
}

TEST_CASE("ComputeMetrics matches hand-computed Table IV columns", "[result]") {
  const Metrics m = ComputeMetrics(ThreeSlotInstance(), ThreeSlotDispatch(), ThreeSlotLoad(), 21.0);
  // 0.5/1000 * (40*250 + 60*430 + 20*50 + 10*(50+50)) = 0.0005 * 37800
  CHECK(m.cost_usd == Approx(18.9));
  CHECK(m.cost_reduction_pct == Approx(10.0));  // 100 * (21 - 18.9) / 21
  CHECK(m.grid_mwh == Approx(0.34));            // 680 kW-slots * 0.5 h / 1000
  CHECK(m.curtailment_mwh == Approx(0.025));
  CHECK(m.bess_throughput_mwh == Approx(0.05));
  CHECK(m.re_utilization_pct == Approx(100.0 * 420 / 470));
  CHECK(m.green_share_pct == Approx(100.0 * (1100 - 680) / 1100));
  CHECK(m.peak_power_kw == 500);
  CHECK(m.peak_gpus == 1024);
}

TEST_CASE("ComputeMetrics cost reduction is 0 without a usable reference", "[result]") {
  const Instance instance = ThreeSlotInstance();
  for (double ref : {0.0, -5.0, std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity()}) {
    CHECK(ComputeMetrics(instance, ThreeSlotDispatch(), ThreeSlotLoad(), ref).cost_reduction_pct ==
          0.0);
  }
  // The reference itself scores 0; a costlier dispatch scores negative.
  CHECK(ComputeMetrics(instance, ThreeSlotDispatch(), ThreeSlotLoad(), 18.9).cost_reduction_pct ==
        Approx(0.0).margin(1e-12));
  CHECK(ComputeMetrics(instance, ThreeSlotDispatch(), ThreeSlotLoad(), 9.45).cost_reduction_pct ==
        Approx(-100.0));
}

TEST_CASE("ComputeMetrics edge cases: no renewable, no load", "[result]") {
  Instance instance = ThreeSlotInstance();
  instance.series.pv_kw = {0, 0, 0};
  instance.series.wind_kw = {0, 0, 0};
  PowerDispatch power;
  power.slots.assign(3, PowerSlot{.aidc_kw = 100, .grid_kw = 100});
  SlotLoad load{.gpus = {0, 0, 0}, .train_it_kw = {0, 0, 0}, .aidc_kw = {100, 100, 100}};
  Metrics m = ComputeMetrics(instance, power, load, 0);
  CHECK(m.re_utilization_pct == 100.0);  // nothing available, nothing wasted
  CHECK(m.green_share_pct == 0.0);       // all from the grid
  CHECK(m.peak_power_kw == 100);
  CHECK(m.peak_gpus == 0);
  CHECK(m.cost_usd == Approx(0.5 / 1000 * (40 + 100 + 60) * 100));

  m = ComputeMetrics(instance, PowerDispatch{}, SlotLoad{}, 0);
  CHECK(m.cost_usd == 0);
  CHECK(m.green_share_pct == 0.0);
  CHECK(m.peak_power_kw == 0);
}

}  // namespace
}  // namespace ckptdp
