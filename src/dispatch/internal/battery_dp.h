// The exact battery dynamic program of the power side (paper eqs. 29-30).
//
// Input: per slot t a convex PWL stage cost c_t(b) of the battery's net power b (kW;
// b > 0 charges, b < 0 discharges). Charge and discharge are exclusive in a slot, so b
// alone fixes the slot: ch = max(b, 0), dis = max(-b, 0), the SoC change is
//   dE = eta_ch * b * dt  (b >= 0),   dE = b * dt / eta_dis  (b < 0),
// and the wear is c_bat * |b| * dt. The DP finds min sum_t c_t(b_t) + wear_t subject to
// |b_t| <= P, soc_min <= E_t <= soc_max for every t and E_T = E_0 = soc_initial.
//
// Method: each stage cost is re-expressed as h_t(dE) (both branches are linear images of
// c_t, so h_t is convex on each side of 0). The backward pass carries
//   V_T = indicator{E_0},  V_{t-1}(E) = min_dE h_t(dE) + V_t(E + dE) on [soc_min, soc_max]
// exactly as convex PWL functions (an infimal convolution per slot, no SoC grid); the
// forward pass recovers dE_t by a one-dimensional exact minimisation per slot.
//
// The one inexact case: h_t can have a non-convex kink at dE = 0 when c_t's slopes near 0
// are very negative (below about -c_bat * (1 + eta) / (1 - eta), eta = eta_ch * eta_dis:
// 19.5 * c_bat at 0.95 / 0.95, i.e. strongly negative prices or multipliers). Burning
// energy in charge-discharge losses would then pay, which exclusivity forbids.
// The DP then uses the convex envelope of h_t, which is at least as tight as the LP
// relaxation of the exclusivity binaries, so `value_usd` is a valid lower bound, and the
// recovered trajectory is still feasible (its true cost is computed by the caller from
// `net_kw`). `convexified` reports this case.
#ifndef CKPTDP_DISPATCH_INTERNAL_BATTERY_DP_H_
#define CKPTDP_DISPATCH_INTERNAL_BATTERY_DP_H_

#include <optional>
#include <span>
#include <vector>

#include "ckptdp/power.h"
#include "ckptdp/status.h"
#include "dispatch/internal/convex_pwl.h"

namespace ckptdp::internal {

struct BatteryModel {
  double step_hours = 1.0;
  double power_kw = 0;  // P = P^ch,max = P^dis,max
  double charge_efficiency = 1.0;
  double discharge_efficiency = 1.0;
  double soc_min_kwh = 0;
  double soc_max_kwh = 0;
  double soc_initial_kwh = 0;
  double wear_usd_per_kwh = 0;  // c_bat / 1000, on (ch + dis) * dt
  // E_T when it differs from E_0 (Instance::battery_soc_final_kwh); unset: E_T = E_0.
  std::optional<double> soc_final_kwh = std::nullopt;
  double FinalSoc() const { return soc_final_kwh.value_or(soc_initial_kwh); }

  static BatteryModel FromInputs(const PowerInputs& inputs);
};

struct BatteryDpResult {
  double value_usd = 0;         // optimum (a lower bound if `convexified`)
  bool convexified = false;     // some slot used the envelope of a non-convex kink
  std::vector<double> net_kw;   // b_t
  std::vector<double> soc_kwh;  // E_t at the end of slot t
};

// The SoC change (kWh) of a slot at net power b (kW): eta_ch b dt charging, b dt / eta_dis
// discharging.
double EnergyChange(const BatteryModel& m, double b);

// Checks the battery parameters (finite, 0 < eta <= 1, soc_min <= soc_initial <= soc_max).
absl::Status ValidateBatteryModel(const BatteryModel& model);

// Solves the DP above. `stage_cost_by_net_kw[t]` is c_t; its domain is intersected with
// [-P, P]. Fails with InvalidArgument on bad parameters and FailedPrecondition if no
// trajectory is feasible (never the case when every c_t is finite at b = 0).
absl::StatusOr<BatteryDpResult> SolveBatteryDp(const BatteryModel& model,
                                               std::span<const ConvexPwl> stage_cost_by_net_kw);

// --- Power-side stage costs (defined in power.cc, declared here for tests) -------------
//
// psi_t(b) = min over L in [load_lo, load_hi], L + b >= 0 of
//              SlotCostUsd(t, L + b) - lambda * L,
// for b in [max(-P, -load_hi), P] (P = battery power, 0 without battery). Convex PWL in
// b with breakpoints among {-P, P, -load_hi, -load_lo, R_t - load_hi, R_t - load_lo}: the
// inner minimum is a window [L_lo + b, L_hi + b] sliding over a convex function of the
// served load N = L + b whose only kinks are at N = 0 (grid >= 0) and N = R_t. A fixed
// load is the case load_lo = load_hi, lambda = 0.
ConvexPwl PowerStageCost(const PowerInputs& inputs, int slot, double load_lo_kw, double load_hi_kw,
                         double lambda_usd_per_kw, double power_kw);

// A minimising L of psi_t at net battery power b (b must be in psi_t's domain).
double PowerStageArgminLoad(const PowerInputs& inputs, int slot, double load_lo_kw,
                            double load_hi_kw, double lambda_usd_per_kw, double net_kw);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_BATTERY_DP_H_
