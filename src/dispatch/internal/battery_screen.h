// A lower bound on the cost of a load profile with the battery, updated slot by slot: the
// neighbourhood search's screen of moves in S6 (neighbourhood.cc).
//
// Without a battery a slot's cost depends on its own load, so a move's change of cost is a
// sum over the slots it touched and moves that cannot pay skip the exact evaluation. With
// one, the battery DP couples the slots, and until this screen every changed schedule was
// evaluated in full (battery DP included): on the 128-job week 88 % of S6's search rounds.
// Dualising the SoC dynamics E_t = E_{t-1} + dE(b_t) with prices rho_t (USD per kWh)
// separates the slots again: for every rho and every load L (weak duality),
//
//   cost(L) >= LB(L) = sum_t psi_t(L_t) + K,
//   psi_t(L) = min over b in [max(-P, -L), P] of SlotCostUsd_t(L + b) + wear |b| dt
//                                                 + rho_t dE(b),
//   K = rho_0 E_initial - rho_{T-1} E_final
//       + sum_{t < T-1} min over E in [E_min, E_max] of (rho_{t+1} - rho_t) E,
//
// where dE(b) = eta_ch b dt (b >= 0) or b dt / eta_dis (b < 0), as in the battery DP
// (battery_dp.h). psi_t is a minimum of a piecewise-linear function of b, attained at an
// end of its domain, at b = 0 or where L + b meets a kink of SlotCostUsd (0 and the
// renewables), so it costs a few SlotCostUsd calls. A move that changes the load in a few
// slots gets LB(L') = LB(L) + sum over those slots of psi_t(L'_t) - psi_t(L_t); when that
// is not below the incumbent's cost, the move cannot pass the acceptance test and its
// battery DP is skipped. The search's path is the same with or without the screen: only
// moves that would be rejected are skipped.
//
// The bound holds for every rho; rho decides only how tight it is. Build takes rho from
// the incumbent's own battery dispatch (complementary slackness): each slot's range of
// rho for which its b minimises psi_t (minus the one-sided slopes of its stage cost in dE),
// linked across slots by where the SoC ends the slot: rho_t = rho_{t+1} strictly inside
// [E_min, E_max], rho_t <= rho_{t+1} at E_min, rho_t >= rho_{t+1} at E_max. A forward pass
// intersects the ranges along those links, a backward pass picks a point in each; for an
// optimal dispatch this is a dual optimum and LB equals the cost up to round-off.
//
// Applies to the paper's power model (PowerInputs::HasGridContract() false: the demand
// charge, import caps and the green floor are not separable by slot) with a battery.
#ifndef CKPTDP_DISPATCH_INTERNAL_BATTERY_SCREEN_H_
#define CKPTDP_DISPATCH_INTERNAL_BATTERY_SCREEN_H_

#include <optional>
#include <span>
#include <vector>

#include "ckptdp/power.h"
#include "ckptdp/result.h"
#include "dispatch/internal/battery_dp.h"

namespace ckptdp::internal {

class BatteryLoadBound {
 public:
  // From a dispatch of `inputs` (its AIDC load, battery net power and SoC per slot);
  // std::nullopt when the screen does not apply (no battery, a grid contract, a dispatch
  // whose length does not match).
  static std::optional<BatteryLoadBound> Build(const PowerInputs& inputs,
                                               const PowerDispatch& dispatch);

  // LB at the dispatch's own load.
  double base_usd() const { return base_usd_; }
  // LB of the load `aidc_kw`: base_usd() plus psi_t's change in every slot where it
  // differs from the dispatch's load.
  double LowerBoundUsd(std::span<const double> aidc_kw) const;
  // psi_t(load) at this bound's rho_t (USD); +infinity if no b serves the load.
  double SlotTermUsd(int t, double aidc_kw) const;
  // rho_t, USD per kWh of SoC at the end of slot t.
  const std::vector<double>& energy_price() const { return rho_; }

 private:
  explicit BatteryLoadBound(const PowerInputs& inputs)
      : inputs_(&inputs), model_(BatteryModel::FromInputs(inputs)) {}

  const PowerInputs* inputs_;
  BatteryModel model_;
  std::vector<double> rho_;
  std::vector<double> load_kw_;                // the dispatch's AIDC load
  std::vector<double> term_usd_;               // psi_t at that load
  std::vector<std::vector<double>> kinks_kw_;  // per slot: SlotCostKinksKw
  double base_usd_ = 0;
};

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_BATTERY_SCREEN_H_
