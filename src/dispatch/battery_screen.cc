#include "dispatch/internal/battery_screen.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ckptdp::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Net powers (kW) closer than this are the same point of a slot's stage cost.
constexpr double kSameKw = 1e-9;
// Energy prices (USD per kWh) this close are equal.
constexpr double kTouchingPrice = 1e-12;
// SoC (kWh) within this of E_min or E_max is at that limit.
constexpr double kSocAtLimitKwh = 1e-7;

struct Range {
  double lo = -kInf;
  double hi = kInf;
  bool empty() const { return lo > hi; }
  Range Intersect(const Range& o) const { return {std::max(lo, o.lo), std::min(hi, o.hi)}; }
  // The point of the range closest to x.
  double Closest(double x) const { return std::clamp(x, lo, hi); }
};

// SlotCostUsd of the served load plus the battery's wear at net power b (as the battery
// DP's stage cost, battery_dp.cc).
double StageCostUsd(const PowerInputs& in, const BatteryModel& m, int t, double load_kw, double b) {
  return SlotCostUsd(in, t, load_kw + b) + m.wear_usd_per_kwh * std::abs(b) * m.step_hours;
}

// The range of rho for which b minimises StageCostUsd + rho dE(b) over slot t's domain:
// minus the stage cost's one-sided slopes in dE at b. Between consecutive candidates
// (domain ends, 0, the served load's kinks) the stage cost is linear in b, so each slope
// is a difference quotient to the neighbouring candidate.
Range OptimalPrices(const PowerInputs& in, const BatteryModel& m, int t, double load_kw, double b,
                    const std::vector<double>& kinks) {
  const double lo = std::max(-m.power_kw, -load_kw), hi = m.power_kw;
  double left = -kInf, right = kInf;  // the neighbouring candidates below and above b
  const auto consider = [&](double x) {
    if (x < lo - kSameKw || x > hi + kSameKw) return;
    if (x < b - kSameKw) left = std::max(left, x);
    if (x > b + kSameKw) right = std::min(right, x);
  };
  consider(lo);
  consider(hi);
  consider(0.0);
  for (double k : kinks) consider(k - load_kw);
  const double at_b = StageCostUsd(in, m, t, load_kw, b);
  // dE per kW of b on each side of b: charging above 0, discharging below.
  const double charge_rate = EnergyChange(m, 1.0), discharge_rate = -EnergyChange(m, -1.0);
  Range range;
  if (std::isfinite(right)) {
    const double slope_b = (StageCostUsd(in, m, t, load_kw, right) - at_b) / (right - b);
    range.lo = -slope_b / (b > -kSameKw ? charge_rate : discharge_rate);
  }
  if (std::isfinite(left)) {
    const double slope_b = (at_b - StageCostUsd(in, m, t, load_kw, left)) / (b - left);
    range.hi = -slope_b / (b > kSameKw ? charge_rate : discharge_rate);
  }
  return range;
}

}  // namespace

std::optional<BatteryLoadBound> BatteryLoadBound::Build(const PowerInputs& inputs,
                                                        const PowerDispatch& dispatch) {
  const int slots = inputs.Slots();
  if (!inputs.use_battery || inputs.HasGridContract() || inputs.battery.power_kw <= 0 ||
      slots == 0 || static_cast<int>(dispatch.slots.size()) != slots) {
    return std::nullopt;
  }
  BatteryLoadBound bound(inputs);
  const BatteryModel& battery = bound.model_;
  bound.kinks_kw_.resize(slots);
  bound.load_kw_.resize(slots);
  std::vector<Range> feasible(slots);  // forward pass: rho_t's range given the earlier links
  // -1: E_t at E_min (rho_t <= rho_{t+1}); +1: at E_max (rho_t >= rho_{t+1}); 0: inside
  // (equal); 2: both limits (E_min = E_max: no link). The last slot links to nothing.
  std::vector<int> link(slots, 2);
  for (int t = 0; t < slots; ++t) {
    const PowerSlot& s = dispatch.slots[t];
    bound.kinks_kw_[t] = SlotCostKinksKw(inputs, t);
    bound.load_kw_[t] = s.aidc_kw;
    const double b = s.charge_kw - s.discharge_kw;
    Range own = OptimalPrices(inputs, battery, t, s.aidc_kw, b, bound.kinks_kw_[t]);
    if (t > 0) {
      Range carried = feasible[t - 1];
      if (link[t - 1] == -1) carried.hi = kInf;
      if (link[t - 1] == +1) carried.lo = -kInf;
      if (link[t - 1] == 2) carried = Range{};
      Range both = own.Intersect(carried);
      // Ranges that touch may miss by round-off (a slope of -0 against one of 1e-17).
      if (both.empty() && both.lo - both.hi <= kTouchingPrice) both.hi = both.lo;
      // Empty otherwise only for a dispatch that is not optimal: the link is then dropped
      // (the bound stays valid, only less tight).
      if (!both.empty()) own = both;
    }
    feasible[t] = own.empty() ? Range{own.hi, own.hi} : own;
    if (t + 1 < slots) {
      const bool at_min = s.soc_kwh <= battery.soc_min_kwh + kSocAtLimitKwh;
      const bool at_max = s.soc_kwh >= battery.soc_max_kwh - kSocAtLimitKwh;
      link[t] = at_min && at_max ? 2 : at_min ? -1 : at_max ? +1 : 0;
    }
  }
  // Backward: a point of each range, as close to the next slot's as its link allows.
  bound.rho_.assign(slots, 0.0);
  const auto finite_point = [](const Range& r, double near) {
    const double x = r.Closest(near);
    if (std::isfinite(x)) return x;
    return std::isfinite(r.lo) ? r.lo : std::isfinite(r.hi) ? r.hi : 0.0;
  };
  const Range& last = feasible[slots - 1];
  bound.rho_[slots - 1] = finite_point(
      last, std::isfinite(last.lo) && std::isfinite(last.hi) ? 0.5 * (last.lo + last.hi) : 0.0);
  for (int t = slots - 2; t >= 0; --t) {
    const double next = bound.rho_[t + 1];
    Range allowed = feasible[t];
    if (link[t] == 0) allowed = allowed.Intersect({next, next});
    if (link[t] == -1) allowed = allowed.Intersect({-kInf, next});
    if (link[t] == +1) allowed = allowed.Intersect({next, kInf});
    bound.rho_[t] = finite_point(allowed.empty() ? feasible[t] : allowed, next);
  }
  // K: the SoC terms of the dual, then psi_t at the dispatch's load.
  double k = bound.rho_[0] * battery.soc_initial_kwh - bound.rho_[slots - 1] * battery.FinalSoc();
  for (int t = 0; t + 1 < slots; ++t) {
    const double coefficient = bound.rho_[t + 1] - bound.rho_[t];
    k += coefficient * (coefficient >= 0 ? battery.soc_min_kwh : battery.soc_max_kwh);
  }
  bound.term_usd_.resize(slots);
  bound.base_usd_ = k;
  for (int t = 0; t < slots; ++t) {
    bound.term_usd_[t] = bound.SlotTermUsd(t, bound.load_kw_[t]);
    bound.base_usd_ += bound.term_usd_[t];
  }
  return bound;
}

double BatteryLoadBound::SlotTermUsd(int t, double aidc_kw) const {
  const double lo = std::max(-model_.power_kw, -aidc_kw), hi = model_.power_kw;
  const double rho = rho_[t];
  double best = kInf;
  const auto consider = [&](double b) {
    if (b < lo || b > hi) return;
    best = std::min(best,
                    StageCostUsd(*inputs_, model_, t, aidc_kw, b) + rho * EnergyChange(model_, b));
  };
  consider(lo);
  consider(hi);
  consider(0.0);
  for (double k : kinks_kw_[t]) consider(k - aidc_kw);
  return best;
}

double BatteryLoadBound::LowerBoundUsd(std::span<const double> aidc_kw) const {
  double bound = base_usd_;
  for (size_t t = 0; t < load_kw_.size(); ++t) {
    if (aidc_kw[t] != load_kw_[t]) {
      bound += SlotTermUsd(static_cast<int>(t), aidc_kw[t]) - term_usd_[t];
    }
  }
  return bound;
}

}  // namespace ckptdp::internal
