// Power side of the dispatch (paper section IV-C, objective eq. 31). See ckptdp/power.h.
//
// Units: power kW (averaged over a slot), energy kWh, prices and costs USD/MWh, so a slot's
// cost is price * kW * step_hours / 1000 USD. The grid only imports (P_grid >= 0), so the
// served load L + b (AIDC load plus battery charging) can never be negative.
#include "ckptdp/power.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "dispatch/internal/battery_dp.h"
#include "dispatch/internal/convex_pwl.h"

namespace ckptdp {
namespace {

using internal::BatteryDpResult;
using internal::BatteryModel;
using internal::ConvexPwl;
using internal::PwlPoint;

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// A served load this far below 0 is rounding, not an export.
constexpr double kLoadTolKw = 1e-9;

// How a slot serves `served_kw` (= AIDC load + battery charge - discharge) from the
// available renewables and the grid.
struct Split {
  double renewable_used_kw = 0;
  double grid_kw = 0;
  double curtailment_kw = 0;
};

// Renewables first; but if the price is below -c_cur, curtailing everything and buying the
// whole load costs less (each kW bought earns -price and each kW curtailed costs c_cur).
// At price == -c_cur both are optimal and the renewables are used.
Split SplitSlot(const PowerInputs& in, int t, double served_kw) {
  const double available = in.renewable_kw[t];
  const double served = std::max(served_kw, 0.0);
  const double used = in.price_usd_per_mwh[t] < -in.costs.curtailment_usd_per_mwh
                          ? 0.0
                          : std::min(available, served);
  return {.renewable_used_kw = used, .grid_kw = served - used, .curtailment_kw = available - used};
}

// Value and a minimiser L of psi_t(b) (see battery_dp.h). The inner function of the served
// load N = L + b is SlotCostUsd(N) - lambda * (N - b), convex with kinks only at N = 0 and
// N = R_t, so its minimum over the window [max(L_lo + b, 0), L_hi + b] is at an end or R_t.
struct StagePoint {
  double value = kInf;
  double load_kw = 0;
};
StagePoint EvalStage(const PowerInputs& in, int t, double lo, double hi, double lambda, double b) {
  const double n_lo = std::max(lo + b, 0.0);
  const double n_hi = std::max(hi + b, n_lo);
  StagePoint best;
  auto consider = [&](double n) {
    const double v = SlotCostUsd(in, t, n) - lambda * (n - b);
    if (v < best.value) best = {v, n - b};
  };
  // R_t first: on ties the load that matches the renewables wins.
  const double r = in.renewable_kw[t];
  if (r > n_lo && r < n_hi) consider(r);
  consider(n_lo);
  consider(n_hi);
  best.load_kw = std::clamp(best.load_kw, lo, hi);
  return best;
}

absl::Status CheckSeries(std::span<const double> values, int slots, const char* name,
                         bool non_negative) {
  if (static_cast<int>(values.size()) != slots) {
    return absl::InvalidArgumentError(absl::StrCat("power: ", name, " has ", values.size(),
                                                   " values, expected ", slots, " (one per slot)"));
  }
  for (int t = 0; t < slots; ++t) {
    if (!std::isfinite(values[t])) {
      return absl::InvalidArgumentError(
          absl::StrCat("power: ", name, "[", t, "] is not a finite number"));
    }
    if (non_negative && values[t] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("power: ", name, "[", t, "] = ", values[t], " must be >= 0"));
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateInputs(const PowerInputs& in) {
  if (!std::isfinite(in.step_hours) || in.step_hours <= 0) {
    return absl::InvalidArgumentError("power: step_hours must be finite and > 0");
  }
  const int slots = in.Slots();
  CKPTDP_RETURN_IF_ERROR(CheckSeries(in.renewable_kw, slots, "renewable_kw", true));
  CKPTDP_RETURN_IF_ERROR(CheckSeries(in.price_usd_per_mwh, slots, "price_usd_per_mwh", false));
  for (double c : {in.costs.curtailment_usd_per_mwh, in.costs.battery_wear_usd_per_mwh}) {
    if (!std::isfinite(c) || c < 0) {
      return absl::InvalidArgumentError(
          "power: curtailment and battery costs must be finite, >= 0");
    }
  }
  if (in.use_battery) {
    CKPTDP_RETURN_IF_ERROR(internal::ValidateBatteryModel(BatteryModel::FromInputs(in)));
  }
  return absl::OkStatus();
}

double BatteryPowerKw(const PowerInputs& in) { return in.use_battery ? in.battery.power_kw : 0.0; }

}  // namespace

namespace internal {

ConvexPwl PowerStageCost(const PowerInputs& inputs, int slot, double load_lo_kw, double load_hi_kw,
                         double lambda_usd_per_kw, double power_kw) {
  const double b_lo = std::max(-power_kw, -load_hi_kw);
  const double b_hi = power_kw;
  const double r = inputs.renewable_kw[slot];
  const double candidates[] = {b_lo, b_hi, 0.0, -load_lo_kw, r - load_hi_kw, r - load_lo_kw};
  std::vector<PwlPoint> points;
  points.reserve(std::size(candidates));
  for (double b : candidates) {
    if (b < b_lo || b > b_hi) continue;
    points.push_back(
        {b, EvalStage(inputs, slot, load_lo_kw, load_hi_kw, lambda_usd_per_kw, b).value});
  }
  // psi is convex and these are all its breakpoints, so the hull is just the interpolant
  // (the hull also drops duplicates and collinear points).
  return ConvexPwl::LowerHull(std::move(points));
}

double PowerStageArgminLoad(const PowerInputs& inputs, int slot, double load_lo_kw,
                            double load_hi_kw, double lambda_usd_per_kw, double net_kw) {
  return EvalStage(inputs, slot, load_lo_kw, load_hi_kw, lambda_usd_per_kw, net_kw).load_kw;
}

}  // namespace internal

PowerInputs PowerInputs::FromInstance(const Instance& instance, bool use_battery) {
  PowerInputs in;
  in.step_hours = instance.time.StepHours();
  const int slots = instance.time.slots;
  const Series& s = instance.series;
  // A missing value becomes NaN, which the dispatch functions reject with the slot named.
  auto at = [](const std::vector<double>& v, int t) {
    return t < static_cast<int>(v.size()) ? v[t] : kNaN;
  };
  in.renewable_kw.resize(slots);
  in.price_usd_per_mwh.resize(slots);
  for (int t = 0; t < slots; ++t) {
    in.renewable_kw[t] = at(s.pv_kw, t) + at(s.wind_kw, t);
    in.price_usd_per_mwh[t] = at(s.price_usd_per_mwh, t);
  }
  in.costs = instance.costs;
  in.soc_final_kwh = instance.battery_soc_final_kwh;
  in.battery = instance.battery;
  in.use_battery = use_battery;
  return in;
}

// A load below 0 (beyond rounding) would need exporting to the grid: +infinity.
double SlotCostUsd(const PowerInputs& inputs, int slot, double aidc_kw) {
  if (aidc_kw < -kLoadTolKw) return kInf;
  const Split split = SplitSlot(inputs, slot, aidc_kw);
  return (inputs.price_usd_per_mwh[slot] * split.grid_kw +
          inputs.costs.curtailment_usd_per_mwh * split.curtailment_kw) *
         inputs.step_hours / 1000.0;
}

absl::StatusOr<PowerDispatch> DispatchFixedLoad(const PowerInputs& inputs,
                                                std::span<const double> aidc_kw) {
  CKPTDP_RETURN_IF_ERROR(ValidateInputs(inputs));
  const int slots = inputs.Slots();
  CKPTDP_RETURN_IF_ERROR(CheckSeries(aidc_kw, slots, "aidc_kw", true));

  std::vector<double> net_kw(slots, 0.0);
  std::vector<double> soc_kwh(slots, 0.0);  // no battery: reported as 0
  if (inputs.use_battery) {
    std::vector<ConvexPwl> stage(slots);
    for (int t = 0; t < slots; ++t) {
      stage[t] =
          internal::PowerStageCost(inputs, t, aidc_kw[t], aidc_kw[t], 0.0, inputs.battery.power_kw);
    }
    CKPTDP_ASSIGN_OR_RETURN(BatteryDpResult dp,
                            internal::SolveBatteryDp(BatteryModel::FromInputs(inputs), stage));
    net_kw = std::move(dp.net_kw);
    soc_kwh = std::move(dp.soc_kwh);
  }

  PowerDispatch dispatch;
  dispatch.slots.resize(slots);
  const double mwh_per_kw = inputs.step_hours / 1000.0;
  for (int t = 0; t < slots; ++t) {
    PowerSlot& s = dispatch.slots[t];
    const double b = net_kw[t];
    s.aidc_kw = aidc_kw[t];
    s.charge_kw = std::max(b, 0.0);
    s.discharge_kw = std::max(-b, 0.0);
    const Split split = SplitSlot(inputs, t, s.aidc_kw + b);
    s.renewable_used_kw = split.renewable_used_kw;
    s.grid_kw = split.grid_kw;
    s.curtailment_kw = split.curtailment_kw;
    s.soc_kwh = soc_kwh[t];
    dispatch.grid_cost_usd += inputs.price_usd_per_mwh[t] * s.grid_kw * mwh_per_kw;
    dispatch.curtailment_cost_usd +=
        inputs.costs.curtailment_usd_per_mwh * s.curtailment_kw * mwh_per_kw;
    dispatch.battery_cost_usd +=
        inputs.costs.battery_wear_usd_per_mwh * (s.charge_kw + s.discharge_kw) * mwh_per_kw;
  }
  return dispatch;
}

// With the battery the value is the DP optimum: exact, or (when a stage cost's kink at
// b = 0 is non-convex, see battery_dp.h) the convexified value, still a valid lower bound,
// which is what the engine's dual bound needs.
absl::StatusOr<PowerSubproblemSolution> SolvePowerSubproblem(
    const PowerInputs& inputs, std::span<const double> lambda_usd_per_kw,
    std::span<const double> load_min_kw, std::span<const double> load_max_kw) {
  CKPTDP_RETURN_IF_ERROR(ValidateInputs(inputs));
  const int slots = inputs.Slots();
  CKPTDP_RETURN_IF_ERROR(CheckSeries(lambda_usd_per_kw, slots, "lambda_usd_per_kw", false));
  CKPTDP_RETURN_IF_ERROR(CheckSeries(load_min_kw, slots, "load_min_kw", true));
  CKPTDP_RETURN_IF_ERROR(CheckSeries(load_max_kw, slots, "load_max_kw", true));
  for (int t = 0; t < slots; ++t) {
    if (load_min_kw[t] > load_max_kw[t]) {
      return absl::InvalidArgumentError(
          absl::StrCat("power: load_min_kw[", t, "] = ", load_min_kw[t], " exceeds load_max_kw[", t,
                       "] = ", load_max_kw[t]));
    }
  }

  PowerSubproblemSolution solution;
  solution.load_kw.resize(slots);
  const double power_kw = BatteryPowerKw(inputs);
  if (power_kw <= 0) {
    // No battery (or a zero-power one, whose SoC cannot move): slots are independent.
    for (int t = 0; t < slots; ++t) {
      const StagePoint p =
          EvalStage(inputs, t, load_min_kw[t], load_max_kw[t], lambda_usd_per_kw[t], 0.0);
      solution.value_usd += p.value;
      solution.load_kw[t] = p.load_kw;
    }
    return solution;
  }

  std::vector<ConvexPwl> stage(slots);
  for (int t = 0; t < slots; ++t) {
    stage[t] = internal::PowerStageCost(inputs, t, load_min_kw[t], load_max_kw[t],
                                        lambda_usd_per_kw[t], power_kw);
  }
  CKPTDP_ASSIGN_OR_RETURN(BatteryDpResult dp,
                          internal::SolveBatteryDp(BatteryModel::FromInputs(inputs), stage));
  solution.value_usd = dp.value_usd;
  for (int t = 0; t < slots; ++t) {
    solution.load_kw[t] = internal::PowerStageArgminLoad(inputs, t, load_min_kw[t], load_max_kw[t],
                                                         lambda_usd_per_kw[t], dp.net_kw[t]);
  }
  return solution;
}

}  // namespace ckptdp
