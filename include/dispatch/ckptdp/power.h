// Power side of the dispatch: renewables, grid, curtailment and battery (section IV-C).
//
// Everything here is exact. A fixed AIDC load profile is dispatched at least cost, with
// or without the battery; and the Lagrangian power subproblem (AIDC load free in a band,
// priced by multipliers) is solved to optimality, so that the engine's dual bound is valid.
// Both reduce to one dynamic program over the battery's state of charge whose value
// functions are convex piecewise linear and are carried exactly (no SoC discretisation).
// The record of a dispatch (PowerSlot, PowerDispatch) is part of a Result (ckptdp/result.h),
// so that stages which only read results need not link this one.
#ifndef CKPTDP_POWER_H_
#define CKPTDP_POWER_H_

#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "ckptdp/instance.h"
#include "ckptdp/result.h"
#include "ckptdp/status.h"

namespace ckptdp {

// The data the power side needs, taken from an Instance.
struct PowerInputs {
  double step_hours = 1.0;
  std::vector<double> renewable_kw;  // PV + wind available, per slot
  std::vector<double> price_usd_per_mwh;
  Costs costs;
  Battery battery;
  bool use_battery = false;
  std::optional<double> soc_final_kwh;  // E_T if not E_0 (Instance::battery_soc_final_kwh)

  // The grid contract (docs/model.md, "Grid contract"). The defaults are the paper's
  // model: no import cap, no export, no carbon or demand charge.
  std::vector<double> import_cap_kw;             // per slot; empty = no cap
  double export_cap_kw = 0;                      // 0 = no export
  std::vector<double> export_price_usd_per_mwh;  // per slot; empty = no export
  std::vector<double> carbon_usd_per_mwh;        // carbon price x intensity; empty = 0
  bool renewable_first = false;                  // never import while curtailing in the same slot
  double demand_charge_usd_per_kw = 0;
  double peak_so_far_kw = 0;
  // Peak multipliers nu_t (USD per kW imported in slot t, >= 0, summing to at most the
  // demand charge): SlotCostUsd adds nu_t (grid_t - peak_so_far), the Lagrangian form of
  // the demand charge. Empty = 0 (the charge left out: still a lower bound).
  std::vector<double> peak_price_usd_per_kw;
  // Floor on the green share 1 - sum grid / sum AIDC load (fraction in [0, 1]; 0 = none),
  // and its multiplier mu (USD per MWh of grid import, >= 0): the Lagrangian form of
  // sum_t grid_t - (1 - floor) L_t <= 0 adds mu to the import price and credits the AIDC
  // load mu (1 - floor) per MWh (SolvePowerSubproblem folds the credit into lambda).
  double min_green_share = 0;
  double green_price_usd_per_mwh = 0;

  static PowerInputs FromInstance(const Instance& instance, bool use_battery);
  int Slots() const { return static_cast<int>(renewable_kw.size()); }
  double ImportCapKw(int t) const {
    return import_cap_kw.empty() ? std::numeric_limits<double>::infinity() : import_cap_kw[t];
  }
  double ExportCapKw() const { return export_price_usd_per_mwh.empty() ? 0.0 : export_cap_kw; }
  // Grid energy price including the carbon price (USD/MWh).
  double ImportPriceUsdPerMwh(int t) const {
    return (carbon_usd_per_mwh.empty() ? price_usd_per_mwh[t]
                                       : price_usd_per_mwh[t] + carbon_usd_per_mwh[t]) +
           green_price_usd_per_mwh;
  }
  double ExportPriceUsdPerMwh(int t) const {
    return export_price_usd_per_mwh.empty() ? 0.0 : export_price_usd_per_mwh[t];
  }
  // True when any term beyond the paper's energy price is present.
  bool HasGridContract() const {
    return !import_cap_kw.empty() || ExportCapKw() > 0 || !carbon_usd_per_mwh.empty() ||
           renewable_first || demand_charge_usd_per_kw > 0 || min_green_share > 0;
  }
};

// Least-cost dispatch of a fixed AIDC load (kW per slot). Without the battery this is the
// per-slot split: renewables first, the rest from the grid, the surplus curtailed (unless
// a price below -c_cur makes buying cheaper). With the battery, charge and discharge are
// exclusive in each slot, SoC stays in [soc_min, soc_max] and ends at soc_initial.
// Fails only if the inputs are inconsistent (length mismatch, negative load).
absl::StatusOr<PowerDispatch> DispatchFixedLoad(const PowerInputs& inputs,
                                                std::span<const double> aidc_kw);

// Lagrangian power subproblem. With multipliers lambda_t (USD per kW of AIDC load held
// through slot t) it solves
//   min  sum_t cost_t(grid, curtailment, battery) - lambda_t * L_t
//   s.t. L_t in [load_min_kw[t], load_max_kw[t]], power balance, battery limits,
// exactly. `value_usd` is the optimal value; `load_kw` an optimal L.
struct PowerSubproblemSolution {
  double value_usd = 0;
  std::vector<double> load_kw;
};
absl::StatusOr<PowerSubproblemSolution> SolvePowerSubproblem(
    const PowerInputs& inputs, std::span<const double> lambda_usd_per_kw,
    std::span<const double> load_min_kw, std::span<const double> load_max_kw);

// Cost (USD) of serving `aidc_kw` in `slot` without battery help: the no-battery split
// above for one slot. Convex piecewise linear in aidc_kw; the engine's repair prices
// load changes with it.
double SlotCostUsd(const PowerInputs& inputs, int slot, double aidc_kw);

// The served loads (kW) at which SlotCostUsd may change slope, finite ones only: 0, the
// renewables R, R minus the export cap, the import cap G and the end R + G of its domain
// (+infinity beyond). A minimum of SlotCostUsd(L + b) - rho b over an interval of b lies
// at an end or at one of these.
std::vector<double> SlotCostKinksKw(const PowerInputs& inputs, int slot);

// The grid import (kW) of the least-cost split of `served_kw` in `slot` (the one
// SlotCostUsd prices), +infinity where the import cap cannot be met. The decomposition
// prices it with the demand charge's and the green floor's multipliers.
double SlotGridKw(const PowerInputs& inputs, int slot, double served_kw);

// The least grid import (kW) that serves `served_kw` in `slot`: what exceeds the
// renewables (and nothing below 0). When SlotGridKw equals it, raising the import price
// cannot change the split, so a slot cost priced at nu_t per kW imported is linear in nu_t.
double MinSlotGridKw(const PowerInputs& inputs, int slot, double served_kw);

// Euclidean projection of the peak multipliers onto {nu >= 0, sum nu <= cap} (cap: the
// demand charge): every point of that set gives a lower bound (docs/model.md).
void ProjectPeakMultipliers(std::span<double> nu, double cap);

// The green share of a dispatch (fraction): 1 - sum grid / sum AIDC load, 0 without load
// (the metrics' green_share_pct / 100).
double GreenShare(std::span<const PowerSlot> slots);

// The demand charge of a dispatch's grid imports: charge x (peak - peak_so_far)+.
double DemandChargeUsd(const PowerInputs& inputs, std::span<const PowerSlot> slots);

}  // namespace ckptdp

#endif  // CKPTDP_POWER_H_
