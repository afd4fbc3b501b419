#include "dispatch/internal/battery_dp.h"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace ckptdp::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The battery physics, written out independently of battery_dp.cc.
double IndependentEnergyChange(const BatteryModel& m, double b) {
  return b >= 0 ? m.charge_efficiency * b * m.step_hours
                : b / m.discharge_efficiency * m.step_hours;
}
double TrueStageCost(const BatteryModel& m, const ConvexPwl& c, double b) {
  return c.Eval(b) + m.wear_usd_per_kwh * std::abs(b) * m.step_hours;
}

// Exhaustive DP over an SoC grid of step `delta` (soc bounds and soc_initial must lie on
// it): every transition between grid points whose net power is within [-P, P] and in the
// stage cost's domain. Its value is >= the exact optimum; equal when the exact optimum is
// on the grid.
double BruteForce(const BatteryModel& m, const std::vector<ConvexPwl>& costs, double delta) {
  const int n = static_cast<int>(std::lround((m.soc_max_kwh - m.soc_min_kwh) / delta)) + 1;
  const int start = static_cast<int>(std::lround((m.soc_initial_kwh - m.soc_min_kwh) / delta));
  std::vector<double> next(n, kInf), cur(n);
  next[start] = 0;
  for (int t = static_cast<int>(costs.size()) - 1; t >= 0; --t) {
    std::fill(cur.begin(), cur.end(), kInf);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        if (next[j] == kInf) continue;
        const double de = (j - i) * delta;
        const double b = de >= 0 ? de / (m.charge_efficiency * m.step_hours)
                                 : de * m.discharge_efficiency / m.step_hours;
        if (std::abs(b) > m.power_kw * (1 + 1e-12) + 1e-12) continue;
        const double c = TrueStageCost(m, costs[t], b);
        if (c == kInf) continue;
        cur[i] = std::min(cur[i], c + next[j]);
      }
    }
    std::swap(cur, next);
  }
  return next[start];
}

// Feasibility of the recovered trajectory; returns its true cost.
double CheckTrajectory(const BatteryModel& m, const std::vector<ConvexPwl>& costs,
                       const BatteryDpResult& r) {
  REQUIRE(r.net_kw.size() == costs.size());
  REQUIRE(r.soc_kwh.size() == costs.size());
  double soc = m.soc_initial_kwh;
  double total = 0;
  for (size_t t = 0; t < costs.size(); ++t) {
    const double b = r.net_kw[t];
    CHECK(std::abs(b) <= m.power_kw + 1e-9);
    soc += IndependentEnergyChange(m, b);
    CHECK(r.soc_kwh[t] == Approx(soc).margin(1e-7));
    CHECK(r.soc_kwh[t] >= m.soc_min_kwh - 1e-9);
    CHECK(r.soc_kwh[t] <= m.soc_max_kwh + 1e-9);
    const double c = TrueStageCost(m, costs[t], b);
    REQUIRE(c < kInf);
    total += c;
  }
  if (!costs.empty()) CHECK(r.soc_kwh.back() == m.soc_initial_kwh);
  return total;
}

// Grid-aligned case: eta_ch = 0.9, eta_dis = 0.8, P = 10 kW, dt = 1 h, so both the
// charge limit (9 kWh) and the discharge limit (12.5 kWh) are multiples of 0.5 kWh; stage
// breakpoints are put at net powers whose SoC change is a multiple of 0.5 kWh too. The
// optimum of this LP then sits on the 0.5 kWh grid, so the brute force is exact.
BatteryModel AlignedModel() {
  return {.step_hours = 1.0,
          .power_kw = 10.0,
          .charge_efficiency = 0.9,
          .discharge_efficiency = 0.8,
          .soc_min_kwh = 0.0,
          .soc_max_kwh = 30.0,
          .soc_initial_kwh = 12.5,
          .wear_usd_per_kwh = 0.5};
}

// must_charge: the domain starts above b = 0 (the slot cannot idle).
ConvexPwl AlignedStage(std::mt19937& rng, const BatteryModel& m, double delta, bool must_charge) {
  auto b_of = [&](int k) {
    return k >= 0 ? k * delta / (m.charge_efficiency * m.step_hours)
                  : k * delta * m.discharge_efficiency / m.step_hours;
  };
  std::uniform_int_distribution<int> k_lo(must_charge ? 1 : -30, must_charge ? 3 : 0);
  std::uniform_int_distribution<int> k_hi(4, 22), k_mid(-30, 22);
  std::uniform_int_distribution<int> pieces(1, 4);
  std::uniform_real_distribution<double> slope(-2, 2), y0(-3, 3);
  std::vector<int> ks{k_lo(rng), k_hi(rng)};
  const int extra = pieces(rng);
  for (int i = 0; i < extra; ++i) {
    const int k = k_mid(rng);
    if (k > ks[0] && k < ks[1]) ks.push_back(k);
  }
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  std::vector<double> slopes(ks.size() - 1);
  for (double& s : slopes) s = slope(rng);
  std::sort(slopes.begin(), slopes.end());
  std::vector<PwlPoint> pts{{b_of(ks[0]), y0(rng)}};
  for (size_t i = 1; i < ks.size(); ++i) {
    const double x = b_of(ks[i]);
    pts.push_back({x, pts.back().y + slopes[i - 1] * (x - pts.back().x)});
  }
  return ConvexPwl::LowerHull(pts);
}

TEST_CASE("Battery DP equals an exhaustive grid DP on grid-aligned cases", "[battery_dp]") {
  const BatteryModel m = AlignedModel();
  const double delta = 0.5;
  std::mt19937 rng(2024);
  int feasible = 0, infeasible = 0;
  for (int rep = 0; rep < 60; ++rep) {
    const int T = 4 + rep % 3;
    std::vector<ConvexPwl> costs;
    for (int t = 0; t < T; ++t) {
      // Every 10th case all slots must charge (infeasible); every 5th only the first.
      const bool must_charge = rep % 10 == 0 || (rep % 5 == 0 && t == 0);
      costs.push_back(AlignedStage(rng, m, delta, must_charge));
    }
    const double brute = BruteForce(m, costs, delta);
    const auto r = SolveBatteryDp(m, costs);
    if (brute == kInf) {
      ++infeasible;
      REQUIRE_FALSE(r.ok());
      CHECK(r.status().code() == absl::StatusCode::kFailedPrecondition);
      continue;
    }
    ++feasible;
    REQUIRE(r.ok());
    CHECK_FALSE(r->convexified);
    CHECK(r->value_usd == Approx(brute).margin(1e-7));
    CHECK(CheckTrajectory(m, costs, *r) == Approx(r->value_usd).margin(1e-7));
  }
  CHECK(feasible > 30);
  CHECK(infeasible > 0);
}

TEST_CASE("Battery DP is within the grid error of a fine grid DP", "[battery_dp]") {
  // Nothing aligned: the grid DP is an upper bound, at most a few grid steps of slope off.
  const BatteryModel m{.step_hours = 0.5,
                       .power_kw = 7.3,
                       .charge_efficiency = 0.95,
                       .discharge_efficiency = 0.93,
                       .soc_min_kwh = 1.0,
                       .soc_max_kwh = 9.0,
                       .soc_initial_kwh = 4.0,
                       .wear_usd_per_kwh = 0.4};
  const double delta = 0.01;
  std::mt19937 rng(99);
  std::uniform_real_distribution<double> slope(-1.5, 1.5), kink(-6, 6), y0(-1, 1);
  for (int rep = 0; rep < 6; ++rep) {
    const int T = 4 + rep % 3;
    std::vector<ConvexPwl> costs;
    double max_slope = 0;
    for (int t = 0; t < T; ++t) {
      double s1 = slope(rng), s2 = slope(rng);
      if (s1 > s2) std::swap(s1, s2);
      const double k = kink(rng), y = y0(rng);
      costs.push_back(
          ConvexPwl::LowerHull({{-10, y + s1 * (-10 - k)}, {k, y}, {10, y + s2 * (10 - k)}}));
      max_slope = std::max({max_slope, std::abs(s1), std::abs(s2)});
    }
    const double brute = BruteForce(m, costs, delta);
    const auto r = SolveBatteryDp(m, costs);
    REQUIRE(r.ok());
    CHECK_FALSE(r->convexified);
    CHECK(r->value_usd <= brute + 1e-9);
    // Per slot the SoC moves by at most one grid step from the exact trajectory; the
    // slope of h in dE is at most (|c'| + wear) / (eta_ch * dt).
    const double slope_de =
        (max_slope + m.wear_usd_per_kwh * m.step_hours) / (m.charge_efficiency * m.step_hours);
    CHECK(brute - r->value_usd <= 2 * T * delta * slope_de);
    CHECK(CheckTrajectory(m, costs, *r) == Approx(r->value_usd).margin(1e-7));
  }
}

TEST_CASE("Battery DP convexifies a non-convex kink and stays a lower bound", "[battery_dp]") {
  // Charging earns 5 USD per kW: a round trip loses energy but pays. Exclusivity makes
  // h(dE) non-convex at 0; the DP must say so, give a lower bound and a feasible plan.
  const BatteryModel m{.step_hours = 1.0,
                       .power_kw = 10.0,
                       .charge_efficiency = 0.8,
                       .discharge_efficiency = 0.8,
                       .soc_min_kwh = 0.0,
                       .soc_max_kwh = 20.0,
                       .soc_initial_kwh = 10.0,
                       .wear_usd_per_kwh = 0.01};
  std::vector<ConvexPwl> costs(5, ConvexPwl::LowerHull({{-10, 50}, {10, -50}}));
  const auto r = SolveBatteryDp(m, costs);
  REQUIRE(r.ok());
  CHECK(r->convexified);
  const double brute = BruteForce(m, costs, 0.5);
  CHECK(r->value_usd <= brute + 1e-9);
  CHECK(r->value_usd < brute - 0.5);  // the relaxation is strictly weaker here
  CHECK(CheckTrajectory(m, costs, *r) >= r->value_usd - 1e-9);
}

TEST_CASE("Battery DP edge cases", "[battery_dp]") {
  BatteryModel m = AlignedModel();
  const std::vector<ConvexPwl> costs(3, ConvexPwl::LowerHull({{-10, 10}, {0, 0}, {10, 5}}));

  SECTION("zero power: the battery idles") {
    m.power_kw = 0;
    const auto r = SolveBatteryDp(m, costs);
    REQUIRE(r.ok());
    CHECK(r->value_usd == Approx(0));
    for (double b : r->net_kw) CHECK(b == 0);
    for (double e : r->soc_kwh) CHECK(e == m.soc_initial_kwh);
  }
  SECTION("soc_min == soc_max pins the SoC") {
    m.soc_min_kwh = m.soc_max_kwh = m.soc_initial_kwh;
    const auto r = SolveBatteryDp(m, costs);
    REQUIRE(r.ok());
    for (double b : r->net_kw) CHECK(std::abs(b) < 1e-9);
  }
  SECTION("no slots") {
    const auto r = SolveBatteryDp(m, {});
    REQUIRE(r.ok());
    CHECK(r->value_usd == 0);
  }
  SECTION("bad parameters") {
    m.charge_efficiency = 0;
    CHECK(SolveBatteryDp(m, costs).status().code() == absl::StatusCode::kInvalidArgument);
    m = AlignedModel();
    m.soc_initial_kwh = m.soc_max_kwh + 1;
    CHECK(SolveBatteryDp(m, costs).status().code() == absl::StatusCode::kInvalidArgument);
    m = AlignedModel();
    m.power_kw = std::numeric_limits<double>::quiet_NaN();
    CHECK(SolveBatteryDp(m, costs).status().code() == absl::StatusCode::kInvalidArgument);
  }
  SECTION("a stage that must charge every slot is infeasible") {
    const std::vector<ConvexPwl> charge(3, ConvexPwl::LowerHull({{2, 0}, {5, 1}}));
    CHECK(SolveBatteryDp(m, charge).status().code() == absl::StatusCode::kFailedPrecondition);
  }
}

TEST_CASE("Battery DP scales to a week of 15-minute slots", "[battery_dp]") {
  const BatteryModel m{.step_hours = 0.25,
                       .power_kw = 300,
                       .charge_efficiency = 0.95,
                       .discharge_efficiency = 0.95,
                       .soc_min_kwh = 80,
                       .soc_max_kwh = 800,
                       .soc_initial_kwh = 400,
                       .wear_usd_per_kwh = 0.02083};
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> price(0.0, 0.2), kink(-300, 300);
  std::vector<ConvexPwl> costs;
  double idle = 0;
  for (int t = 0; t < 672; ++t) {
    // Like a slot's grid/curtailment cost: -c_cur below the kink, the price above it.
    const double k = kink(rng), p = price(rng) * m.step_hours, c = -0.02083 * m.step_hours;
    const ConvexPwl f =
        ConvexPwl::LowerHull({{-300, c * (-300 - k)}, {k, 0}, {300, p * (300 - k)}});
    idle += f.Eval(0);
    costs.push_back(f);
  }
  const auto r = SolveBatteryDp(m, costs);
  REQUIRE(r.ok());
  CHECK_FALSE(r->convexified);
  CHECK(r->value_usd <= idle + 1e-9);
  CHECK(CheckTrajectory(m, costs, *r) == Approx(r->value_usd).epsilon(1e-9).margin(1e-7));
}

}  // namespace
}  // namespace ckptdp::internal
