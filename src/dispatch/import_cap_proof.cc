#include "dispatch/internal/import_cap_proof.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace ckptdp::internal {
namespace {

// "0-6, 19-23" for the slots marked true.
std::string SlotRanges(const std::vector<bool>& marked) {
  std::string out;
  const int n = static_cast<int>(marked.size());
  for (int t = 0; t < n; ++t) {
    if (!marked[t]) continue;
    int end = t;
    while (end + 1 < n && marked[end + 1]) ++end;
    absl::StrAppend(&out, out.empty() ? "" : ", ",
                    t == end ? absl::StrCat(t) : absl::StrCat(t, "-", end));
    t = end;
  }
  return out;
}

// The green floor over the same band: min over loads and dispatches of
// sum_t grid_t - (1 - floor) L_t (kWh) is a power subproblem with grid energy priced at
// 1 USD/kWh, the load credited (1 - floor) USD/kWh and every other cost left out. Above 0,
// no load of the band (so no schedule) reaches the floor.
absl::StatusOr<ImportCapProof> ProveGreenFloorInfeasible(const ScenarioContext& context) {
  ImportCapProof proof;
  const PowerInputs& power = context.power;
  if (power.min_green_share <= 0) return proof;
  const Instance& in = *context.instance;
  const int slots = context.slots();
  const std::vector<double> lo(slots, in.site.base_load_kw);
  const std::vector<double> hi(slots, in.site.site_power_cap_kw);
  PowerInputs green = power;
  green.price_usd_per_mwh.assign(slots, 1000.0);
  green.carbon_usd_per_mwh.clear();
  green.export_price_usd_per_mwh.clear();
  green.costs.curtailment_usd_per_mwh = 0;
  green.costs.battery_wear_usd_per_mwh = 0;
  green.demand_charge_usd_per_kw = 0;
  green.min_green_share = 0;  // dualised by hand: the prices above and the credit below
  green.green_price_usd_per_mwh = 0;
  const std::vector<double> credit(slots, (1.0 - power.min_green_share) * power.step_hours);
  CKPTDP_ASSIGN_OR_RETURN(const PowerSubproblemSolution solution,
                          SolvePowerSubproblem(green, credit, lo, hi));
  double scale_kwh = 0;
  for (double kw : hi) scale_kwh += kw * power.step_hours;
  if (!(solution.value_usd > 1e-9 * scale_kwh + 1e-6)) return proof;
  proof.proven = true;
  proof.diagnosis = absl::StrFormat(
      "min_green_share_pct cannot be met (proven): no AIDC load between the base load (%.1f "
      "kW) and the site cap (%.1f kW) in every slot, with all renewables used%s, reaches a "
      "green share of %.2f %%",
      in.site.base_load_kw, in.site.site_power_cap_kw,
      power.use_battery ? " and the battery's help" : "", 100.0 * power.min_green_share);
  return proof;
}

}  // namespace

absl::StatusOr<ImportCapProof> ProveImportCapInfeasible(const ScenarioContext& context) {
  ImportCapProof proof;
  const PowerInputs& power = context.power;
  if (power.import_cap_kw.empty()) return ProveGreenFloorInfeasible(context);
  const Instance& in = *context.instance;
  const int slots = context.slots();
  const std::vector<double> lo(slots, in.site.base_load_kw);
  const std::vector<double> hi(slots, in.site.site_power_cap_kw);
  const std::vector<double> zero(slots, 0.0);
  PowerInputs plain = power;
  plain.demand_charge_usd_per_kw = 0;  // only feasibility matters here
  CKPTDP_ASSIGN_OR_RETURN(const PowerSubproblemSolution solution,
                          SolvePowerSubproblem(plain, zero, lo, hi));
  if (std::isfinite(solution.value_usd)) return ProveGreenFloorInfeasible(context);
  proof.proven = true;
  const double battery_kw = power.use_battery ? power.battery.power_kw : 0.0;
  std::vector<bool> short_alone(slots), short_without_battery(slots);
  for (int t = 0; t < slots; ++t) {
    const double supply = power.renewable_kw[t] + power.ImportCapKw(t);
    short_without_battery[t] = in.site.base_load_kw > supply;
    short_alone[t] = in.site.base_load_kw > supply + battery_kw;
  }
  const std::string alone = SlotRanges(short_alone);
  if (!alone.empty()) {
    proof.diagnosis = absl::StrFormat(
        "the import cap cannot be met (proven): in slots %s the base load of %.1f kW exceeds "
        "the renewables plus the import cap%s, whatever the jobs do",
        alone, in.site.base_load_kw,
        battery_kw > 0 ? absl::StrFormat(" plus the battery's %.1f kW", battery_kw) : "");
  } else {
    proof.diagnosis = absl::StrFormat(
        "the import cap cannot be met (proven): in slots %s the base load of %.1f kW exceeds "
        "the renewables plus the import cap, and the battery (%.1f kW, %.1f kWh between its "
        "limits) cannot cover all of them and still end at its initial charge",
        SlotRanges(short_without_battery), in.site.base_load_kw, battery_kw,
        power.battery.soc_max_kwh - power.battery.soc_min_kwh);
  }
  return proof;
}

}  // namespace ckptdp::internal
