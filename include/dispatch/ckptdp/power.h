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

  static PowerInputs FromInstance(const Instance& instance, bool use_battery);
  int Slots() const { return static_cast<int>(renewable_kw.size()); }
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

}  // namespace ckptdp

#endif  // CKPTDP_POWER_H_
