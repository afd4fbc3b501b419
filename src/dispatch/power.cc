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
#include <optional>
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
  double export_kw = 0;
  bool feasible = true;  // false: the import cap cannot be met
};

// The paper's split: renewables first; but if the price is below -c_cur, curtailing
// everything and buying the whole load costs less (each kW bought earns -price and each
// kW curtailed costs c_cur). At price == -c_cur both are optimal and the renewables are used.
Split PaperSplit(const PowerInputs& in, int t, double served_kw) {
  const double available = in.renewable_kw[t];
  const double served = std::max(served_kw, 0.0);
  const double used = in.price_usd_per_mwh[t] < -in.costs.curtailment_usd_per_mwh
                          ? 0.0
                          : std::min(available, served);
  return {.renewable_used_kw = used, .grid_kw = served - used, .curtailment_kw = available - used};
}

// With the grid contract: keep k kW of the renewables (the rest is curtailed); the net
// grid flow N - k is imported (up to the cap G) or exported (up to the export cap E).
// k lies in [max(0, N - G), min(R, N + E)]; the cost is piecewise linear in k with
// kinks only where the flow changes sign (k = N), so the best k is an end of that range,
// N or R (R: renewable_first allows curtailing only when nothing is imported, k >= N,
// or not at all, k = R). Ties keep more renewables.
Split ContractSplit(const PowerInputs& in, int t, double served_kw) {
  const double available = in.renewable_kw[t];
  const double served = std::max(served_kw, 0.0);
  const double import_cap = in.ImportCapKw(t);
  const double k_lo = std::max(0.0, served - import_cap);
  const double k_hi = std::min(available, served + in.ExportCapKw());
  if (k_lo > k_hi + kLoadTolKw) return {.feasible = false};
  const double k_min = std::min(k_lo, k_hi);  // within rounding of k_hi
  const double nu = in.peak_price_usd_per_kw.empty() ? 0.0 : in.peak_price_usd_per_kw[t];
  const double import_usd_per_kw = in.ImportPriceUsdPerMwh(t) * in.step_hours / 1000.0 + nu;
  const double export_usd_per_kw = in.ExportPriceUsdPerMwh(t) * in.step_hours / 1000.0;
  const double curtail_usd_per_kw = in.costs.curtailment_usd_per_mwh * in.step_hours / 1000.0;
  Split best{.feasible = false};
  double best_cost = kInf;
  for (double k :
       {k_hi, std::clamp(served, k_min, k_hi), std::clamp(available, k_min, k_hi), k_min}) {
    const double net = served - k;
    if (in.renewable_first && k < available - kLoadTolKw && net > kLoadTolKw) continue;
    const double grid = std::max(net, 0.0), exported = std::max(-net, 0.0);
    const double cost = import_usd_per_kw * grid - export_usd_per_kw * exported +
                        curtail_usd_per_kw * (available - k);
    if (cost < best_cost) {
      best_cost = cost;
      best = {.renewable_used_kw = k - exported,
              .grid_kw = grid,
              .curtailment_kw = available - k,
              .export_kw = exported};
    }
  }
  return best;
}

Split SplitSlot(const PowerInputs& in, int t, double served_kw) {
  return in.HasGridContract() ? ContractSplit(in, t, served_kw) : PaperSplit(in, t, served_kw);
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
  double n_hi = std::max(hi + b, n_lo);
  StagePoint best;
  auto consider = [&](double n) {
    const double v = SlotCostUsd(in, t, n) - lambda * (n - b);
    if (v < best.value) best = {v, n - b};
  };
  // R_t first: on ties the load that matches the renewables wins.
  const double r = in.renewable_kw[t];
  if (in.HasGridContract()) {
    // Above R + G the import cap cannot be met; the other kinks are SlotCostKinksKw's.
    const double domain_hi = r + in.ImportCapKw(t);
    if (n_lo > domain_hi + kLoadTolKw) return {kInf, lo};
    n_hi = std::min(n_hi, std::max(domain_hi, n_lo));
    for (double k : SlotCostKinksKw(in, t)) {
      if (k > n_lo && k < n_hi) consider(k);
    }
  } else if (r > n_lo && r < n_hi) {
    consider(r);
  }
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
  const std::pair<const std::vector<double>*, const char*> optional[] = {
      {&in.import_cap_kw, "import_cap_kw"},
      {&in.export_price_usd_per_mwh, "export_price_usd_per_mwh"},
      {&in.carbon_usd_per_mwh, "carbon_usd_per_mwh"},
      {&in.peak_price_usd_per_kw, "peak_price_usd_per_kw"}};
  for (const auto& [values, name] : optional) {
    if (values->empty()) continue;
    CKPTDP_RETURN_IF_ERROR(
        CheckSeries(*values, slots, name, values != &in.export_price_usd_per_mwh));
  }
  if (!(in.min_green_share >= 0 && in.min_green_share <= 1) || !(in.green_price_usd_per_mwh >= 0) ||
      !std::isfinite(in.green_price_usd_per_mwh)) {
    return absl::InvalidArgumentError(
        "power: min_green_share must be in [0, 1] and its price finite, >= 0");
  }
  for (double v : {in.export_cap_kw, in.demand_charge_usd_per_kw, in.peak_so_far_kw}) {
    if (!std::isfinite(v) || v < 0) {
      return absl::InvalidArgumentError("power: export cap, demand charge and peak must be >= 0");
    }
  }
  return absl::OkStatus();
}

double BatteryPowerKw(const PowerInputs& in) { return in.use_battery ? in.battery.power_kw : 0.0; }

double PeakGridKw(const PowerDispatch& d) {
  double peak = 0;
  for (const PowerSlot& s : d.slots) peak = std::max(peak, s.grid_kw);
  return peak;
}

absl::Status ImportCapError(const PowerInputs& in, int t, double load_kw) {
  return absl::FailedPreconditionError(
      absl::StrCat("power: slot ", t, ": a load of ", load_kw, " kW exceeds the renewables (",
                   in.renewable_kw[t], " kW) plus the import cap (", in.ImportCapKw(t), " kW)",
                   in.use_battery ? " with the battery's help" : ""));
}

// Least-cost dispatch of a fixed load at the inputs' caps and prices (the demand charge
// is reported, not optimised: DispatchFixedLoad searches the peak around this).
absl::StatusOr<PowerDispatch> DispatchOnce(const PowerInputs& inputs,
                                           std::span<const double> aidc_kw) {
  const int slots = inputs.Slots();
  std::vector<double> net_kw(slots, 0.0);
  std::vector<double> soc_kwh(slots, 0.0);  // no battery: reported as 0
  if (inputs.use_battery) {
    std::vector<ConvexPwl> stage(slots);
    for (int t = 0; t < slots; ++t) {
      stage[t] =
          internal::PowerStageCost(inputs, t, aidc_kw[t], aidc_kw[t], 0.0, inputs.battery.power_kw);
      if (stage[t].empty()) return ImportCapError(inputs, t, aidc_kw[t]);
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
    if (!split.feasible) return ImportCapError(inputs, t, aidc_kw[t]);
    s.renewable_used_kw = split.renewable_used_kw;
    s.grid_kw = split.grid_kw;
    s.curtailment_kw = split.curtailment_kw;
    s.export_kw = split.export_kw;
    s.soc_kwh = soc_kwh[t];
    dispatch.grid_cost_usd += inputs.price_usd_per_mwh[t] * s.grid_kw * mwh_per_kw;
    dispatch.curtailment_cost_usd +=
        inputs.costs.curtailment_usd_per_mwh * s.curtailment_kw * mwh_per_kw;
    dispatch.battery_cost_usd +=
        inputs.costs.battery_wear_usd_per_mwh * (s.charge_kw + s.discharge_kw) * mwh_per_kw;
    if (!inputs.carbon_usd_per_mwh.empty()) {
      dispatch.carbon_cost_usd += inputs.carbon_usd_per_mwh[t] * s.grid_kw * mwh_per_kw;
    }
    if (s.export_kw > 0) {
      dispatch.export_revenue_usd += inputs.ExportPriceUsdPerMwh(t) * s.export_kw * mwh_per_kw;
    }
  }
  dispatch.demand_charge_usd = DemandChargeUsd(inputs, dispatch.slots);
  return dispatch;
}

// The power subproblem at fixed peak multipliers (those in `inputs`), with the grid
// import of its solution per slot (for the multipliers' subgradient).
struct SubproblemAtPrices {
  PowerSubproblemSolution solution;
  std::vector<double> grid_kw;
};

absl::StatusOr<SubproblemAtPrices> SolveSubproblemAtPrices(
    const PowerInputs& inputs, std::span<const double> lambda_usd_per_kw,
    std::span<const double> load_min_kw, std::span<const double> load_max_kw) {
  const int slots = inputs.Slots();
  SubproblemAtPrices out;
  PowerSubproblemSolution& solution = out.solution;
  solution.load_kw.resize(slots);
  out.grid_kw.assign(slots, 0.0);
  const double power_kw = BatteryPowerKw(inputs);
  std::vector<double> net_kw(slots, 0.0);
  if (power_kw <= 0) {
    // No battery (or a zero-power one, whose SoC cannot move): slots are independent.
    for (int t = 0; t < slots; ++t) {
      const StagePoint p =
          EvalStage(inputs, t, load_min_kw[t], load_max_kw[t], lambda_usd_per_kw[t], 0.0);
      solution.value_usd += p.value;
      solution.load_kw[t] = p.load_kw;
    }
  } else {
    std::vector<ConvexPwl> stage(slots);
    bool infeasible = false;
    for (int t = 0; t < slots; ++t) {
      stage[t] = internal::PowerStageCost(inputs, t, load_min_kw[t], load_max_kw[t],
                                          lambda_usd_per_kw[t], power_kw);
      infeasible |= stage[t].empty();
    }
    absl::StatusOr<BatteryDpResult> dp =
        infeasible ? absl::FailedPreconditionError("import cap")
                   : internal::SolveBatteryDp(BatteryModel::FromInputs(inputs), stage);
    if (!dp.ok()) {
      // Only the import caps can make the band unservable; without them it is a bug.
      if (!inputs.HasGridContract() || !absl::IsFailedPrecondition(dp.status())) {
        return dp.status();
      }
      solution.value_usd = kInf;
      for (int t = 0; t < slots; ++t) solution.load_kw[t] = load_min_kw[t];
      return out;
    }
    solution.value_usd = dp->value_usd;
    net_kw = dp->net_kw;
    for (int t = 0; t < slots; ++t) {
      solution.load_kw[t] = internal::PowerStageArgminLoad(
          inputs, t, load_min_kw[t], load_max_kw[t], lambda_usd_per_kw[t], net_kw[t]);
    }
  }
  if (inputs.HasGridContract()) {
    for (int t = 0; t < slots; ++t) {
      out.grid_kw[t] = SplitSlot(inputs, t, solution.load_kw[t] + net_kw[t]).grid_kw;
    }
  }
  return out;
}

// The demand charge D (peak - peak_so_far)+ dualised: for nu >= 0 with sum nu <= D,
// sum_t nu_t (grid_t - peak_so_far) never exceeds the charge, so every such nu gives a
// lower bound. A few projected subgradient steps from nu = 0 and from all of D on the
// slot of highest import; the best bound found is returned.
absl::StatusOr<SubproblemAtPrices> SolveWithPeakMultipliers(
    const PowerInputs& inputs, std::span<const double> lambda_usd_per_kw,
    std::span<const double> load_min_kw, std::span<const double> load_max_kw) {
  constexpr int kPeakSteps = 20;
  const int slots = inputs.Slots();
  const double charge = inputs.demand_charge_usd_per_kw;
  PowerInputs priced = inputs;
  priced.peak_price_usd_per_kw.assign(slots, 0.0);
  CKPTDP_ASSIGN_OR_RETURN(
      SubproblemAtPrices best,
      SolveSubproblemAtPrices(priced, lambda_usd_per_kw, load_min_kw, load_max_kw));
  if (!std::isfinite(best.solution.value_usd) || slots == 0) return best;
  std::vector<double> grid = best.grid_kw;
  std::vector<double>& nu = priced.peak_price_usd_per_kw;
  nu[std::max_element(grid.begin(), grid.end()) - grid.begin()] = charge;
  for (int step = 1; step <= kPeakSteps; ++step) {
    CKPTDP_ASSIGN_OR_RETURN(
        SubproblemAtPrices at,
        SolveSubproblemAtPrices(priced, lambda_usd_per_kw, load_min_kw, load_max_kw));
    if (at.solution.value_usd > best.solution.value_usd) best = at;
    double norm = 0;
    for (int t = 0; t < slots; ++t)
      norm = std::max(norm, std::abs(at.grid_kw[t] - inputs.peak_so_far_kw));
    if (norm <= 0) break;
    const double scale = charge / (step * norm);
    for (int t = 0; t < slots; ++t) nu[t] += scale * (at.grid_kw[t] - inputs.peak_so_far_kw);
    ProjectPeakMultipliers(nu, charge);
  }
  return best;
}

// The power subproblem at the green price in `inputs` (mu): the load's credit
// mu (1 - floor) per MWh joins lambda; the demand charge is dualised as above.
absl::StatusOr<SubproblemAtPrices> SolveAtGreenPrice(const PowerInputs& inputs,
                                                     std::span<const double> lambda_usd_per_kw,
                                                     std::span<const double> load_min_kw,
                                                     std::span<const double> load_max_kw) {
  std::vector<double> lambda(lambda_usd_per_kw.begin(), lambda_usd_per_kw.end());
  const double credit =
      inputs.green_price_usd_per_mwh * (1.0 - inputs.min_green_share) * inputs.step_hours / 1000.0;
  for (double& l : lambda) l += credit;
  if (inputs.demand_charge_usd_per_kw <= 0) {
    return SolveSubproblemAtPrices(inputs, lambda, load_min_kw, load_max_kw);
  }
  return SolveWithPeakMultipliers(inputs, lambda, load_min_kw, load_max_kw);
}

// sum_t grid_t - (1 - floor) L_t (kW summed over slots): the green floor's subgradient.
double GreenSlackKw(const PowerInputs& inputs, const SubproblemAtPrices& at) {
  double g = 0;
  for (int t = 0; t < inputs.Slots(); ++t) {
    g += at.grid_kw[t] - (1.0 - inputs.min_green_share) * at.solution.load_kw[t];
  }
  return g;
}

// The green floor dualised with one multiplier mu >= 0: every mu gives a lower bound
// (the term mu (sum grid - (1 - floor) sum L) is <= 0 on every schedule meeting the
// floor). The dual function is concave in mu, so mu is searched by the sign of the
// subgradient: 0 if the floor holds there, else doubling then bisection; the best
// bound found is returned (with its load).
absl::StatusOr<PowerSubproblemSolution> SolveWithGreenMultiplier(
    const PowerInputs& inputs, std::span<const double> lambda_usd_per_kw,
    std::span<const double> load_min_kw, std::span<const double> load_max_kw) {
  constexpr int kGreenSteps = 16;
  constexpr double kMaxGreenPrice = 1e6;  // USD/MWh
  PowerInputs priced = inputs;
  priced.green_price_usd_per_mwh = 0;
  CKPTDP_ASSIGN_OR_RETURN(SubproblemAtPrices best,
                          SolveAtGreenPrice(priced, lambda_usd_per_kw, load_min_kw, load_max_kw));
  if (!std::isfinite(best.solution.value_usd) || GreenSlackKw(priced, best) <= 0) {
    return std::move(best.solution);
  }
  double price_scale = 1;
  for (int t = 0; t < inputs.Slots(); ++t) {
    price_scale = std::max(price_scale, std::abs(inputs.ImportPriceUsdPerMwh(t)));
  }
  double mu_lo = 0, mu_hi = price_scale;
  bool bracketed = false;
  for (int step = 0; step < kGreenSteps; ++step) {
    const double mu = bracketed ? 0.5 * (mu_lo + mu_hi) : mu_hi;
    priced.green_price_usd_per_mwh = mu;
    CKPTDP_ASSIGN_OR_RETURN(SubproblemAtPrices at,
                            SolveAtGreenPrice(priced, lambda_usd_per_kw, load_min_kw, load_max_kw));
    if (at.solution.value_usd > best.solution.value_usd) best = at;
    if (GreenSlackKw(priced, at) > 0) {
      mu_lo = mu;
      if (!bracketed) {
        if (mu_hi >= kMaxGreenPrice) break;
        mu_hi = std::min(4 * mu_hi, kMaxGreenPrice);
      }
    } else {
      mu_hi = mu;
      bracketed = true;
    }
  }
  return std::move(best.solution);
}

}  // namespace

namespace internal {

ConvexPwl PowerStageCost(const PowerInputs& inputs, int slot, double load_lo_kw, double load_hi_kw,
                         double lambda_usd_per_kw, double power_kw) {
  const double b_lo = std::max(-power_kw, -load_hi_kw);
  double b_hi = power_kw;
  const double r = inputs.renewable_kw[slot];
  std::vector<double> candidates = {b_lo, b_hi, 0.0, -load_lo_kw, r - load_hi_kw, r - load_lo_kw};
  if (inputs.HasGridContract()) {
    // b above R + G - load_lo leaves no load of the band within the import cap.
    b_hi = std::min(b_hi, r + inputs.ImportCapKw(slot) - load_lo_kw);
    if (b_hi < b_lo) return ConvexPwl{};
    candidates.push_back(b_hi);
    for (double k : SlotCostKinksKw(inputs, slot)) {
      candidates.push_back(k - load_hi_kw);
      candidates.push_back(k - load_lo_kw);
    }
  }
  std::vector<PwlPoint> points;
  points.reserve(candidates.size());
  for (double b : candidates) {
    if (b < b_lo || b > b_hi) continue;
    points.push_back(
        {b, EvalStage(inputs, slot, load_lo_kw, load_hi_kw, lambda_usd_per_kw, b).value});
  }
  // psi is convex and these are all its breakpoints, so the hull is just the interpolant
  // (the hull also drops duplicates and collinear points). With renewable_first psi can
  // lose convexity at a price below -c_cur; the hull is then its convex envelope, whose
  // vertices are among these points: a lower bound, as the battery DP's envelope is.
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
  const GridContract& g = instance.grid;
  if (!s.import_cap_kw.empty() || g.grid_import_cap_kw < GridContract{}.grid_import_cap_kw) {
    in.import_cap_kw.resize(slots);
    for (int t = 0; t < slots; ++t) {
      in.import_cap_kw[t] =
          std::min(g.grid_import_cap_kw,
                   s.import_cap_kw.empty() ? g.grid_import_cap_kw : at(s.import_cap_kw, t));
    }
  }
  if (!s.export_price_usd_per_mwh.empty()) {
    in.export_price_usd_per_mwh = s.export_price_usd_per_mwh;
    in.export_cap_kw = g.grid_export_cap_kw;
  }
  if (!s.carbon_g_per_kwh.empty() && g.carbon_price_usd_per_t > 0) {
    // g/kWh = kg/MWh; USD/t x kg/MWh / 1000 = USD/MWh.
    in.carbon_usd_per_mwh.resize(slots);
    for (int t = 0; t < slots; ++t) {
      in.carbon_usd_per_mwh[t] = g.carbon_price_usd_per_t * at(s.carbon_g_per_kwh, t) / 1000.0;
    }
  }
  in.renewable_first = g.renewable_first;
  in.demand_charge_usd_per_kw = g.demand_charge_usd_per_kw;
  in.peak_so_far_kw = g.peak_so_far_kw;
  in.min_green_share = g.min_green_share_pct / 100.0;
  return in;
}

// A load below 0 (beyond rounding) would need exporting to the grid: +infinity.
double SlotCostUsd(const PowerInputs& inputs, int slot, double aidc_kw) {
  if (aidc_kw < -kLoadTolKw) return kInf;
  const Split split = SplitSlot(inputs, slot, aidc_kw);
  if (!split.feasible) return kInf;
  if (!inputs.HasGridContract()) {
    return (inputs.price_usd_per_mwh[slot] * split.grid_kw +
            inputs.costs.curtailment_usd_per_mwh * split.curtailment_kw) *
           inputs.step_hours / 1000.0;
  }
  const double nu = inputs.peak_price_usd_per_kw.empty() ? 0.0 : inputs.peak_price_usd_per_kw[slot];
  return (inputs.ImportPriceUsdPerMwh(slot) * split.grid_kw -
          inputs.ExportPriceUsdPerMwh(slot) * split.export_kw +
          inputs.costs.curtailment_usd_per_mwh * split.curtailment_kw) *
             inputs.step_hours / 1000.0 +
         nu * (split.grid_kw - inputs.peak_so_far_kw);
}

double SlotGridKw(const PowerInputs& inputs, int slot, double served_kw) {
  const Split split = SplitSlot(inputs, slot, served_kw);
  return split.feasible ? split.grid_kw : kInf;
}

double MinSlotGridKw(const PowerInputs& inputs, int slot, double served_kw) {
  return std::max(0.0, served_kw - inputs.renewable_kw[slot]);
}

void ProjectPeakMultipliers(std::span<double> nu, double cap) {
  double sum = 0;
  for (double& v : nu) {
    v = std::max(v, 0.0);
    sum += v;
  }
  if (sum <= cap) return;
  std::vector<double> sorted(nu.begin(), nu.end());
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  double prefix = 0, theta = 0;
  for (size_t i = 0; i < sorted.size(); ++i) {
    prefix += sorted[i];
    const double candidate = (prefix - cap) / static_cast<double>(i + 1);
    if (sorted[i] - candidate > 0) theta = candidate;
  }
  for (double& v : nu) v = std::max(v - theta, 0.0);
}

std::vector<double> SlotCostKinksKw(const PowerInputs& inputs, int slot) {
  const double r = inputs.renewable_kw[slot];
  const double g = inputs.ImportCapKw(slot);
  std::vector<double> kinks = {0.0, r};
  for (double k : {r - inputs.ExportCapKw(), g, r + g}) {
    if (std::isfinite(k) && k > 0) kinks.push_back(k);
  }
  return kinks;
}

double DemandChargeUsd(const PowerInputs& inputs, std::span<const PowerSlot> slots) {
  if (inputs.demand_charge_usd_per_kw <= 0) return 0;
  double peak = 0;
  for (const PowerSlot& s : slots) peak = std::max(peak, s.grid_kw);
  return inputs.demand_charge_usd_per_kw * std::max(0.0, peak - inputs.peak_so_far_kw);
}

namespace {

// DispatchFixedLoad at the green price in `inputs` (the floor itself is not enforced).
absl::StatusOr<PowerDispatch> DispatchAtGreenPrice(const PowerInputs& inputs,
                                                   std::span<const double> aidc_kw) {
  const int slots = inputs.Slots();
  if (!inputs.HasGridContract()) return DispatchOnce(inputs, aidc_kw);
  // The dispatch pays the true demand charge, not its multipliers.
  PowerInputs plain = inputs;
  plain.peak_price_usd_per_kw.clear();
  CKPTDP_ASSIGN_OR_RETURN(PowerDispatch best, DispatchOnce(plain, aidc_kw));
  const double peak = PeakGridKw(best);
  if (plain.demand_charge_usd_per_kw <= 0 || peak <= plain.peak_so_far_kw + kLoadTolKw) {
    return best;
  }
  // The demand charge couples the slots: search the peak level P (imports capped at P).
  // The cost of the best dispatch under a cap P plus the charge on P is convex in P for
  // a convex power side (a parametric linear program), so a golden-section search finds
  // it; every dispatch tried is feasible and the cheapest is kept.
  PowerInputs capped = plain;
  capped.import_cap_kw.resize(slots);
  auto cost_at = [&](double level) {
    for (int t = 0; t < slots; ++t) capped.import_cap_kw[t] = std::min(plain.ImportCapKw(t), level);
    absl::StatusOr<PowerDispatch> d = DispatchOnce(capped, aidc_kw);
    if (!d.ok()) return kInf;
    const double cost = d->TotalCostUsd();
    if (cost < best.TotalCostUsd()) best = *std::move(d);
    return cost;
  };
  constexpr double kGolden = 0.6180339887498949;
  constexpr int kPeakSearchSteps = 40;
  double lo = plain.peak_so_far_kw, hi = peak;
  double x1 = hi - kGolden * (hi - lo), x2 = lo + kGolden * (hi - lo);
  double f1 = cost_at(x1), f2 = cost_at(x2);
  for (int step = 0; step < kPeakSearchSteps && hi - lo > 1e-6; ++step) {
    // An infeasible cap (+infinity) lies below every feasible one.
    if (f1 == kInf || f1 > f2) {
      lo = x1;
      x1 = x2;
      f1 = f2;
      x2 = lo + kGolden * (hi - lo);
      f2 = cost_at(x2);
    } else {
      hi = x2;
      x2 = x1;
      f2 = f1;
      x1 = hi - kGolden * (hi - lo);
      f1 = cost_at(x1);
    }
  }
  return best;
}

// Tolerance on the green share (a fraction) when checking a dispatch against the floor.
constexpr double kGreenShareTol = 1e-9;

absl::Status GreenFloorError(const PowerInputs& inputs, double best_share) {
  return absl::FailedPreconditionError(absl::StrCat(
      "power: min_green_share_pct: this load's green share is at most ", 100.0 * best_share,
      " %, below the floor of ", 100.0 * inputs.min_green_share, " %"));
}

// The green floor on a fixed load: the least-cost dispatch with grid energy priced at
// mu more, for the least mu found whose dispatch meets the floor (doubling, then
// bisection). Every dispatch returned is checked against the floor; if even the highest
// price cannot meet it (the dispatch then imports as little as it can), the load is
// unservable: an error, never a silent violation.
absl::StatusOr<PowerDispatch> DispatchWithGreenFloor(const PowerInputs& inputs,
                                                     std::span<const double> aidc_kw) {
  constexpr int kGreenSteps = 30;
  constexpr double kMaxGreenPrice = 1e7;  // USD/MWh
  PowerInputs priced = inputs;
  priced.green_price_usd_per_mwh = 0;
  CKPTDP_ASSIGN_OR_RETURN(PowerDispatch first, DispatchAtGreenPrice(priced, aidc_kw));
  const double floor = inputs.min_green_share - kGreenShareTol;
  if (GreenShare(first.slots) >= floor) return first;
  double price_scale = 1;
  for (int t = 0; t < inputs.Slots(); ++t) {
    price_scale = std::max(price_scale, std::abs(inputs.ImportPriceUsdPerMwh(t)));
  }
  std::optional<PowerDispatch> best;
  double mu_lo = 0, mu_hi = price_scale, best_share = GreenShare(first.slots);
  for (int step = 0; step < kGreenSteps; ++step) {
    const double mu = best ? 0.5 * (mu_lo + mu_hi) : mu_hi;
    priced.green_price_usd_per_mwh = mu;
    absl::StatusOr<PowerDispatch> d = DispatchAtGreenPrice(priced, aidc_kw);
    if (!d.ok()) return d.status();
    const double share = GreenShare(d->slots);
    best_share = std::max(best_share, share);
    if (share >= floor) {
      if (!best || d->TotalCostUsd() < best->TotalCostUsd()) best = *std::move(d);
      mu_hi = mu;
    } else {
      mu_lo = mu;
      if (!best) {
        if (mu_hi >= kMaxGreenPrice) break;
        mu_hi = std::min(8 * mu_hi, kMaxGreenPrice);
      }
    }
  }
  if (!best) return GreenFloorError(inputs, best_share);
  return *std::move(best);
}

}  // namespace

double GreenShare(std::span<const PowerSlot> slots) {
  double aidc = 0, grid = 0;
  for (const PowerSlot& s : slots) {
    aidc += s.aidc_kw;
    grid += s.grid_kw;
  }
  return aidc > 0 ? (aidc - grid) / aidc : 0.0;
}

absl::StatusOr<PowerDispatch> DispatchFixedLoad(const PowerInputs& inputs,
                                                std::span<const double> aidc_kw) {
  CKPTDP_RETURN_IF_ERROR(ValidateInputs(inputs));
  CKPTDP_RETURN_IF_ERROR(CheckSeries(aidc_kw, inputs.Slots(), "aidc_kw", true));
  if (inputs.min_green_share > 0) return DispatchWithGreenFloor(inputs, aidc_kw);
  return DispatchAtGreenPrice(inputs, aidc_kw);
}

// With the battery the value is the DP optimum: exact, or (when a stage cost's kink at
// b = 0 is non-convex, see battery_dp.h) the convexified value, still a valid lower bound,
// which is what the engine's dual bound needs. A band no dispatch can serve within the
// import caps gives +infinity: no schedule exists (the relaxation is infeasible).
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
  if (inputs.min_green_share > 0) {
    return SolveWithGreenMultiplier(inputs, lambda_usd_per_kw, load_min_kw, load_max_kw);
  }
  CKPTDP_ASSIGN_OR_RETURN(SubproblemAtPrices at,
                          SolveAtGreenPrice(inputs, lambda_usd_per_kw, load_min_kw, load_max_kw));
  return std::move(at.solution);
}

}  // namespace ckptdp
