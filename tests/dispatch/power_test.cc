#include "ckptdp/power.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "dispatch/internal/battery_dp.h"

namespace ckptdp {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

PowerInputs MakeInputs(std::vector<double> renewable, std::vector<double> price, double dt,
                       bool use_battery) {
  PowerInputs in;
  in.step_hours = dt;
  in.renewable_kw = std::move(renewable);
  in.price_usd_per_mwh = std::move(price);
  in.costs = {.curtailment_usd_per_mwh = 20, .battery_wear_usd_per_mwh = 20};
  in.use_battery = use_battery;
  return in;
}

// Brute force of one slot's cost: renewables used r over a grid of [0, min(R, L)].
double BruteSlotCost(const PowerInputs& in, int t, double load) {
  const double r_max = std::min(in.renewable_kw[t], load);
  double best = kInf;
  for (int k = 0; k <= 1000; ++k) {
    const double r = r_max * k / 1000.0;
    const double usd = (in.price_usd_per_mwh[t] * (load - r) +
                        in.costs.curtailment_usd_per_mwh * (in.renewable_kw[t] - r)) *
                       in.step_hours / 1000.0;
    best = std::min(best, usd);
  }
  return best;
}

// psi_t(b) by brute force over L: a fine grid plus the points where L -> cost(L + b) can
// kink (L + b = R_t, L + b = 0) and the ends. Exact, independent of psi's b-breakpoints.
double BrutePsi(const PowerInputs& in, int t, double lo, double hi, double lambda, double b,
                int grid = 0) {
  std::vector<double> ls{lo, hi, in.renewable_kw[t] - b, -b};
  for (int k = 1; k < grid; ++k) ls.push_back(lo + (hi - lo) * k / grid);
  double best = kInf;
  for (double l : ls) {
    if (l < lo || l > hi || l + b < 0) continue;
    best = std::min(best, SlotCostUsd(in, t, l + b) - lambda * l);
  }
  return best;
}

// Exhaustive DP over an SoC grid; stage(t, b) is the slot cost at net battery power b.
template <typename Stage>
double BruteBatteryDp(const PowerInputs& in, double delta, Stage stage) {
  const Battery& bat = in.battery;
  const int n = static_cast<int>(std::lround((bat.soc_max_kwh - bat.soc_min_kwh) / delta)) + 1;
  const int start = static_cast<int>(std::lround((bat.soc_initial_kwh - bat.soc_min_kwh) / delta));
  const double wear = in.costs.battery_wear_usd_per_mwh / 1000.0 * in.step_hours;
  std::vector<double> next(n, kInf), cur(n);
  next[start] = 0;
  for (int t = in.Slots() - 1; t >= 0; --t) {
    std::fill(cur.begin(), cur.end(), kInf);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        if (next[j] == kInf) continue;
        const double de = (j - i) * delta;
        const double b = de >= 0 ? de / (bat.charge_efficiency * in.step_hours)
                                 : de * bat.discharge_efficiency / in.step_hours;
        if (std::abs(b) > bat.power_kw + 1e-9) continue;
        const double c = stage(t, b);
        if (c == kInf) continue;
        cur[i] = std::min(cur[i], c + wear * std::abs(b) + next[j]);
      }
    }
    std::swap(cur, next);
  }
  return next[start];
}

// Grid-aligned battery: with eta = 0.8, P = 20 kW, dt = 1 h, every multiple of 10 kW maps
// to an SoC change on the 0.5 kWh grid, and all breakpoints are multiples of 10 kW, so the
// exhaustive grid DP finds the exact optimum.
Battery AlignedBattery() {
  return {.power_kw = 20,
          .energy_kwh = 60,
          .charge_efficiency = 0.8,
          .discharge_efficiency = 0.8,
          .soc_min_kwh = 0,
          .soc_max_kwh = 60,
          .soc_initial_kwh = 30};
}

PowerInputs RandomAlignedInputs(std::mt19937& rng, int slots) {
  std::uniform_int_distribution<int> tens(0, 10);
  std::uniform_real_distribution<double> price(-50, 150);
  PowerInputs in = MakeInputs({}, {}, 1.0, true);
  for (int t = 0; t < slots; ++t) {
    in.renewable_kw.push_back(10.0 * tens(rng));
    in.price_usd_per_mwh.push_back(price(rng));
  }
  in.battery = AlignedBattery();
  return in;
}

void CheckDispatchConsistent(const PowerInputs& in, std::span<const double> load,
                             const PowerDispatch& d) {
  REQUIRE(static_cast<int>(d.slots.size()) == in.Slots());
  double grid = 0, curt = 0, wear = 0;
  double soc = in.battery.soc_initial_kwh;
  for (int t = 0; t < in.Slots(); ++t) {
    const PowerSlot& s = d.slots[t];
    CHECK(s.aidc_kw == load[t]);
    CHECK(s.renewable_used_kw >= 0);
    CHECK(s.curtailment_kw >= -1e-9);
    CHECK(s.grid_kw >= -1e-9);
    CHECK(s.charge_kw >= 0);
    CHECK(s.discharge_kw >= 0);
    CHECK(s.charge_kw * s.discharge_kw == 0);  // exclusive
    CHECK(s.renewable_used_kw + s.grid_kw + s.discharge_kw ==
          Approx(s.aidc_kw + s.charge_kw).margin(1e-9));
    CHECK(s.renewable_used_kw + s.curtailment_kw == Approx(in.renewable_kw[t]).margin(1e-9));
    if (in.use_battery) {
      CHECK(s.charge_kw <= in.battery.power_kw + 1e-9);
      CHECK(s.discharge_kw <= in.battery.power_kw + 1e-9);
      soc += (in.battery.charge_efficiency * s.charge_kw -
              s.discharge_kw / in.battery.discharge_efficiency) *
             in.step_hours;
      CHECK(s.soc_kwh == Approx(soc).margin(1e-6));
      CHECK(s.soc_kwh >= in.battery.soc_min_kwh - 1e-9);
      CHECK(s.soc_kwh <= in.battery.soc_max_kwh + 1e-9);
    } else {
      CHECK(s.charge_kw == 0);
      CHECK(s.discharge_kw == 0);
    }
    const double k = in.step_hours / 1000.0;
    grid += in.price_usd_per_mwh[t] * s.grid_kw * k;
    curt += in.costs.curtailment_usd_per_mwh * s.curtailment_kw * k;
    wear += in.costs.battery_wear_usd_per_mwh * (s.charge_kw + s.discharge_kw) * k;
  }
  if (in.use_battery && in.Slots() > 0) {
    CHECK(d.slots.back().soc_kwh == in.battery.soc_initial_kwh);
  }
  CHECK(d.grid_cost_usd == Approx(grid).margin(1e-9));
  CHECK(d.curtailment_cost_usd == Approx(curt).margin(1e-9));
  CHECK(d.battery_cost_usd == Approx(wear).margin(1e-9));
}

TEST_CASE("PowerInputs::FromInstance", "[power]") {
  Instance inst;
  inst.time = {.step_minutes = 30, .slots = 3};
  inst.series.pv_kw = {0, 100, 50};
  inst.series.wind_kw = {10, 20, 30};
  inst.series.price_usd_per_mwh = {40, -5, 90};
  inst.costs = {.curtailment_usd_per_mwh = 11, .battery_wear_usd_per_mwh = 7};
  inst.battery.power_kw = 123;
  const PowerInputs in = PowerInputs::FromInstance(inst, true);
  CHECK(in.step_hours == 0.5);
  CHECK(in.Slots() == 3);
  CHECK(in.renewable_kw == std::vector<double>{10, 120, 80});
  CHECK(in.price_usd_per_mwh == std::vector<double>{40, -5, 90});
  CHECK(in.costs.curtailment_usd_per_mwh == 11);
  CHECK(in.costs.battery_wear_usd_per_mwh == 7);
  CHECK(in.battery.power_kw == 123);
  CHECK(in.use_battery);
  CHECK_FALSE(PowerInputs::FromInstance(inst, false).use_battery);

  // A short series is reported by the dispatch, not read out of bounds.
  inst.series.wind_kw.pop_back();
  const std::vector<double> load{1, 1, 1};
  const auto d = DispatchFixedLoad(PowerInputs::FromInstance(inst, false), load);
  REQUIRE_FALSE(d.ok());
  CHECK(d.status().code() == absl::StatusCode::kInvalidArgument);
  CHECK(std::string(d.status().message()).find("renewable_kw[2]") != std::string::npos);
}

TEST_CASE("SlotCostUsd: hand-computed splits", "[power]") {
  // R = 100 kW, c_cur = 20 USD/MWh, half-hour slots.
  const PowerInputs in = MakeInputs({100, 100, 100}, {50, -30, -20}, 0.5, false);
  // Surplus: 40 kW curtailed for half an hour = 0.02 MWh * 20.
  CHECK(SlotCostUsd(in, 0, 60) == Approx(0.4));
  // Deficit: 50 kW bought at 50 USD/MWh.
  CHECK(SlotCostUsd(in, 0, 150) == Approx(1.25));
  CHECK(SlotCostUsd(in, 0, 100) == Approx(0.0).margin(1e-15));
  // Price -30 < -c_cur: buy all 60 kW (-0.9) and curtail all 100 kW (+1.0) beats using
  // renewables (0.4).
  CHECK(SlotCostUsd(in, 1, 60) == Approx(0.1));
  // Price == -c_cur: indifferent; 0.02 MWh * 20 for the surplus either way.
  CHECK(SlotCostUsd(in, 2, 60) == Approx(0.4));
  CHECK(SlotCostUsd(in, 0, -1) == kInf);  // the grid does not take exports

  std::mt19937 rng(11);
  std::uniform_real_distribution<double> ren(0, 500), pr(-80, 200), load(0, 800);
  for (int rep = 0; rep < 200; ++rep) {
    const PowerInputs r = MakeInputs({ren(rng)}, {pr(rng)}, 0.25, false);
    const double l = load(rng);
    CHECK(SlotCostUsd(r, 0, l) == Approx(BruteSlotCost(r, 0, l)).margin(1e-12));
  }
}

TEST_CASE("DispatchFixedLoad without battery: hand-computed split", "[power]") {
  const PowerInputs in = MakeInputs({100, 100, 0}, {50, -30, 80}, 0.5, false);
  const std::vector<double> load{60, 60, 40};
  const auto d = DispatchFixedLoad(in, load);
  REQUIRE(d.ok());
  CheckDispatchConsistent(in, load, *d);
  const auto& s = d->slots;
  CHECK(s[0].renewable_used_kw == 60);
  CHECK(s[0].grid_kw == 0);
  CHECK(s[0].curtailment_kw == 40);
  // Negative price below -c_cur: everything bought, everything curtailed.
  CHECK(s[1].renewable_used_kw == 0);
  CHECK(s[1].grid_kw == 60);
  CHECK(s[1].curtailment_kw == 100);
  CHECK(s[2].grid_kw == 40);
  for (const PowerSlot& slot : s) CHECK(slot.soc_kwh == 0);
  CHECK(d->grid_cost_usd == Approx(-0.9 + 1.6));
  CHECK(d->curtailment_cost_usd == Approx(0.4 + 1.0));
  CHECK(d->battery_cost_usd == 0);
  CHECK(d->TotalCostUsd() == Approx(2.1));
}

TEST_CASE("DispatchFixedLoad with battery equals an exhaustive SoC-grid DP", "[power]") {
  std::mt19937 rng(17);
  std::uniform_int_distribution<int> tens(0, 10);
  for (int rep = 0; rep < 25; ++rep) {
    const int slots = 4 + rep % 3;
    PowerInputs in = RandomAlignedInputs(rng, slots);
    std::vector<double> load(slots);
    for (double& l : load) l = 10.0 * tens(rng);
    const auto d = DispatchFixedLoad(in, load);
    REQUIRE(d.ok());
    CheckDispatchConsistent(in, load, *d);
    const double brute = BruteBatteryDp(in, 0.5, [&](int t, double b) {
      return load[t] + b < -1e-9 ? kInf : SlotCostUsd(in, t, load[t] + b);
    });
    CHECK(d->TotalCostUsd() == Approx(brute).margin(1e-9));

    in.use_battery = false;
    const auto plain = DispatchFixedLoad(in, load);
    REQUIRE(plain.ok());
    CHECK(d->TotalCostUsd() <= plain->TotalCostUsd() + 1e-12);
  }
}

TEST_CASE("DispatchFixedLoad with battery: shifting surplus into a deficit", "[power]") {
  // Slot 0 curtails 100 kW; slot 1 buys 100 kW at 200 USD/MWh. The battery stores
  // min(P, ...) in slot 0 and returns it in slot 1.
  PowerInputs in = MakeInputs({200, 0}, {10, 200}, 1.0, true);
  in.battery = AlignedBattery();  // 20 kW, eta 0.8, SoC 30 of [0, 60]
  const std::vector<double> load{100, 100};
  const auto d = DispatchFixedLoad(in, load);
  REQUIRE(d.ok());
  CheckDispatchConsistent(in, load, *d);
  // Charging 20 kW stores 16 kWh; returning it delivers 12.8 kW. Net: curtailment -20 kW
  // (saves 0.4 USD), grid -12.8 kW (saves 2.56 USD), wear 32.8 kWh * 0.02 = 0.656 USD.
  CHECK(d->slots[0].charge_kw == Approx(20));
  CHECK(d->slots[1].discharge_kw == Approx(12.8));
  CHECK(d->slots[0].soc_kwh == Approx(46));
  CHECK(d->slots[1].soc_kwh == 30);
  const double plain = 100 * 20 / 1000.0 + 100 * 200 / 1000.0;
  CHECK(d->TotalCostUsd() == Approx(plain - 0.4 - 2.56 + 0.656));
}

TEST_CASE("DispatchFixedLoad and SolvePowerSubproblem reject bad input", "[power]") {
  PowerInputs in = MakeInputs({100, 100}, {50, 60}, 1.0, true);
  in.battery = AlignedBattery();
  const std::vector<double> two{10, 10};
  const std::vector<double> one{10};
  auto code = [](const absl::Status& s) { return s.code(); };
  CHECK(code(DispatchFixedLoad(in, one).status()) == absl::StatusCode::kInvalidArgument);
  CHECK(code(DispatchFixedLoad(in, std::vector<double>{10, -1}).status()) ==
        absl::StatusCode::kInvalidArgument);
  CHECK(code(DispatchFixedLoad(in, std::vector<double>{10, NAN}).status()) ==
        absl::StatusCode::kInvalidArgument);
  CHECK(code(SolvePowerSubproblem(in, one, two, two).status()) ==
        absl::StatusCode::kInvalidArgument);
  CHECK(code(SolvePowerSubproblem(in, two, std::vector<double>{20, 0}, two).status()) ==
        absl::StatusCode::kInvalidArgument);  // lo > hi
  CHECK(code(SolvePowerSubproblem(in, two, std::vector<double>{-1, 0}, two).status()) ==
        absl::StatusCode::kInvalidArgument);
  CHECK(code(SolvePowerSubproblem(in, std::vector<double>{0, INFINITY}, two, two).status()) ==
        absl::StatusCode::kInvalidArgument);

  PowerInputs bad_price = in;
  bad_price.price_usd_per_mwh = {50};
  CHECK(code(DispatchFixedLoad(bad_price, two).status()) == absl::StatusCode::kInvalidArgument);
  PowerInputs bad_battery = in;
  bad_battery.battery.soc_initial_kwh = 100;  // above soc_max
  CHECK(code(DispatchFixedLoad(bad_battery, two).status()) == absl::StatusCode::kInvalidArgument);
  bad_battery.use_battery = false;  // the battery is not used, so it is not checked
  CHECK(DispatchFixedLoad(bad_battery, two).ok());
  PowerInputs bad_step = in;
  bad_step.step_hours = 0;
  CHECK(code(DispatchFixedLoad(bad_step, two).status()) == absl::StatusCode::kInvalidArgument);
}

TEST_CASE("psi_t matches brute force over L at random net powers", "[power]") {
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> ren(0, 400), pr(-60, 200), lam(-0.3, 0.3), u(0, 1);
  for (int rep = 0; rep < 300; ++rep) {
    PowerInputs in = MakeInputs({ren(rng)}, {pr(rng)}, 0.25 + 0.25 * (rep % 4), true);
    const double lo = rep % 5 == 0 ? 0.0 : 300 * u(rng);
    const double hi = rep % 7 == 0 ? lo : lo + 300 * u(rng);
    const double lambda = lam(rng) * in.step_hours;
    const double power = 50 + 250 * u(rng);
    const internal::ConvexPwl psi = internal::PowerStageCost(in, 0, lo, hi, lambda, power);
    REQUIRE_FALSE(psi.empty());
    CHECK(psi.lo() == Approx(std::max(-power, -hi)));
    CHECK(psi.hi() == Approx(power));
    for (int k = 0; k < 20; ++k) {
      const double b = psi.lo() + (psi.hi() - psi.lo()) * u(rng);
      const double brute = BrutePsi(in, 0, lo, hi, lambda, b, 2000);
      CHECK(psi.Eval(b) == Approx(brute).margin(1e-9));
      const double l = internal::PowerStageArgminLoad(in, 0, lo, hi, lambda, b);
      CHECK(l >= lo);
      CHECK(l <= hi);
      CHECK(l + b >= -1e-9);
      CHECK(SlotCostUsd(in, 0, l + b) - lambda * l == Approx(brute).margin(1e-9));
    }
  }
}

TEST_CASE("SolvePowerSubproblem without battery equals per-slot brute force", "[power]") {
  std::mt19937 rng(31);
  std::uniform_real_distribution<double> ren(0, 400), pr(-60, 200), lam(-0.3, 0.3), u(0, 1);
  for (int rep = 0; rep < 50; ++rep) {
    const int slots = 6;
    PowerInputs in = MakeInputs({}, {}, 0.5, false);
    std::vector<double> lambda, lo, hi;
    for (int t = 0; t < slots; ++t) {
      in.renewable_kw.push_back(ren(rng));
      in.price_usd_per_mwh.push_back(pr(rng));
      lambda.push_back(lam(rng) * in.step_hours);
      lo.push_back(t % 3 == 0 ? 0.0 : 300 * u(rng));
      hi.push_back(lo.back() + 300 * u(rng));
    }
    const auto sol = SolvePowerSubproblem(in, lambda, lo, hi);
    REQUIRE(sol.ok());
    double brute = 0, achieved = 0;
    for (int t = 0; t < slots; ++t) {
      brute += BrutePsi(in, t, lo[t], hi[t], lambda[t], 0.0, 5000);
      CHECK(sol->load_kw[t] >= lo[t]);
      CHECK(sol->load_kw[t] <= hi[t]);
      achieved += SlotCostUsd(in, t, sol->load_kw[t]) - lambda[t] * sol->load_kw[t];
    }
    CHECK(sol->value_usd == Approx(brute).margin(1e-9));
    CHECK(achieved == Approx(sol->value_usd).margin(1e-9));
  }
}

TEST_CASE("SolvePowerSubproblem with battery equals an exhaustive DP", "[power]") {
  std::mt19937 rng(37);
  std::uniform_int_distribution<int> tens(0, 5);
  std::uniform_real_distribution<double> lam(-0.1, 0.2);
  for (int rep = 0; rep < 25; ++rep) {
    const int slots = 4 + rep % 3;
    const PowerInputs in = RandomAlignedInputs(rng, slots);
    std::vector<double> lambda, lo, hi;
    for (int t = 0; t < slots; ++t) {
      lambda.push_back(lam(rng));
      lo.push_back(10.0 * tens(rng));
      hi.push_back(lo.back() + 10.0 * tens(rng));
    }
    const auto sol = SolvePowerSubproblem(in, lambda, lo, hi);
    REQUIRE(sol.ok());
    const double brute = BruteBatteryDp(
        in, 0.5, [&](int t, double b) { return BrutePsi(in, t, lo[t], hi[t], lambda[t], b); });
    CHECK(sol->value_usd == Approx(brute).margin(1e-9));

    // The returned load is optimal: dispatching it at least cost reproduces the value.
    double priced = 0;
    for (int t = 0; t < slots; ++t) {
      CHECK(sol->load_kw[t] >= lo[t]);
      CHECK(sol->load_kw[t] <= hi[t]);
      priced += lambda[t] * sol->load_kw[t];
    }
    const auto d = DispatchFixedLoad(in, sol->load_kw);
    REQUIRE(d.ok());
    CHECK(d->TotalCostUsd() - priced == Approx(sol->value_usd).margin(1e-9));
  }
}

TEST_CASE("SolvePowerSubproblem on a paper-sized week is consistent", "[power]") {
  // 672 quarter-hour slots, the paper's battery, an unaligned random day-ahead picture.
  std::mt19937 rng(41);
  std::uniform_real_distribution<double> ren(0, 1400), pr(-10, 120), lam(-0.05, 0.1), u(0, 1);
  PowerInputs in = MakeInputs({}, {}, 0.25, true);
  in.costs = {.curtailment_usd_per_mwh = 20.83, .battery_wear_usd_per_mwh = 20.83};
  in.battery = Battery{};
  std::vector<double> lambda, lo, hi;
  for (int t = 0; t < 672; ++t) {
    in.renewable_kw.push_back(ren(rng));
    in.price_usd_per_mwh.push_back(pr(rng));
    lambda.push_back(lam(rng) * in.step_hours);
    lo.push_back(375 + 300 * u(rng));
    hi.push_back(lo.back() + 800 * u(rng));
  }
  const auto sol = SolvePowerSubproblem(in, lambda, lo, hi);
  REQUIRE(sol.ok());
  double priced = 0;
  for (int t = 0; t < 672; ++t) priced += lambda[t] * sol->load_kw[t];
  const auto d = DispatchFixedLoad(in, sol->load_kw);
  REQUIRE(d.ok());
  CheckDispatchConsistent(in, sol->load_kw, *d);
  CHECK(d->TotalCostUsd() - priced == Approx(sol->value_usd).epsilon(1e-9).margin(1e-6));

  in.use_battery = false;
  const auto plain = SolvePowerSubproblem(in, lambda, lo, hi);
  REQUIRE(plain.ok());
  CHECK(sol->value_usd <= plain->value_usd + 1e-9);
}

}  // namespace
}  // namespace ckptdp
