// Table IV's metrics of one dispatched scenario, exactly as defined in docs/result-format.md.
#include "ckptdp/result.h"

#include <algorithm>
#include <cmath>

namespace ckptdp {

Metrics ComputeMetrics(const Instance& instance, const PowerDispatch& power, const SlotLoad& load,
                       double reference_cost_usd) {
  const double dt = instance.time.StepHours();
  const int slots = static_cast<int>(power.slots.size());
  // Sums of kW over slots; multiplied by dt / 1000 they become MWh.
  double grid_kw = 0, curtail_kw = 0, battery_kw = 0, used_kw = 0, aidc_kw = 0;
  double renewable_kw = 0;
  // Cost is recomputed from the slots rather than taken from the PowerDispatch totals, so
  // that the reported number is the one a reader of the result file can reproduce.
  double cost_usd = 0;
  for (int t = 0; t < slots; ++t) {
    const PowerSlot& s = power.slots[t];
    grid_kw += s.grid_kw;
    curtail_kw += s.curtailment_kw;
    battery_kw += s.charge_kw + s.discharge_kw;
    used_kw += s.renewable_used_kw;
    aidc_kw += s.aidc_kw;
    if (t < static_cast<int>(instance.series.pv_kw.size()) &&
        t < static_cast<int>(instance.series.wind_kw.size())) {
      renewable_kw += instance.RenewableKw(t);
    }
    const double price = t < static_cast<int>(instance.series.price_usd_per_mwh.size())
                             ? instance.series.price_usd_per_mwh[t]
                             : 0.0;
    cost_usd += dt / 1000.0 *
                (price * s.grid_kw + instance.costs.curtailment_usd_per_mwh * s.curtailment_kw +
                 instance.costs.battery_wear_usd_per_mwh * (s.charge_kw + s.discharge_kw));
  }

  Metrics m;
  m.cost_usd = cost_usd;
  m.cost_reduction_pct = reference_cost_usd > 0 && std::isfinite(reference_cost_usd)
                             ? 100.0 * (reference_cost_usd - cost_usd) / reference_cost_usd
                             : 0.0;
  m.grid_mwh = grid_kw * dt / 1000.0;
  m.curtailment_mwh = curtail_kw * dt / 1000.0;
  m.bess_throughput_mwh = battery_kw * dt / 1000.0;
  // With nothing to use nothing was wasted; with no load there is no share to speak of.
  m.re_utilization_pct = renewable_kw > 0 ? 100.0 * used_kw / renewable_kw : 100.0;
  m.green_share_pct = aidc_kw > 0 ? 100.0 * (aidc_kw - grid_kw) / aidc_kw : 0.0;
  // The load's AIDC column equals the dispatch's; the dispatch is the fallback when a
  // caller has no SlotLoad (e.g. a dispatch built directly from a load profile).
  if (!load.aidc_kw.empty()) {
    for (double kw : load.aidc_kw) m.peak_power_kw = std::max(m.peak_power_kw, kw);
  } else {
    for (const PowerSlot& s : power.slots) m.peak_power_kw = std::max(m.peak_power_kw, s.aidc_kw);
  }
  for (int gpus : load.gpus) m.peak_gpus = std::max(m.peak_gpus, gpus);
  return m;
}

}  // namespace ckptdp
