// Table IV's metrics of one dispatched scenario, exactly as defined in docs/result-format.md.
#include "ckptdp/result.h"

#include <algorithm>
#include <cmath>

namespace ckptdp {

bool HasGridContract(const Instance& instance) {
  const Series& s = instance.series;
  return !(instance.grid == GridContract{}) || !s.import_cap_kw.empty() ||
         !s.export_price_usd_per_mwh.empty() || !s.carbon_g_per_kwh.empty() ||
         !s.carbon_marginal_g_per_kwh.empty();
}

namespace {

// The contract's metrics, and its terms of the cost (added to cost_usd).
void AddGridContractMetrics(const Instance& instance, const PowerDispatch& power, Metrics& m) {
  const double dt = instance.time.StepHours();
  const Series& series = instance.series;
  const GridContract& grid = instance.grid;
  auto at = [](const std::vector<double>& v, size_t t) { return t < v.size() ? v[t] : 0.0; };
  double export_kw = 0, revenue = 0, carbon_g = 0, marginal_g = 0, carbon_usd = 0;
  for (size_t t = 0; t < power.slots.size(); ++t) {
    const PowerSlot& s = power.slots[t];
    m.peak_grid_import_kw = std::max(m.peak_grid_import_kw, s.grid_kw);
    export_kw += s.export_kw;
    revenue += at(series.export_price_usd_per_mwh, t) * s.export_kw * dt / 1000.0;
    // g/kWh x kWh = g.
    carbon_g += at(series.carbon_g_per_kwh, t) * s.grid_kw * dt;
    marginal_g += at(series.carbon_marginal_g_per_kwh, t) * s.grid_kw * dt;
    // USD/t x g/kWh / 1e6 = USD per kWh.
    carbon_usd +=
        grid.carbon_price_usd_per_t * at(series.carbon_g_per_kwh, t) / 1e6 * s.grid_kw * dt;
  }
  m.grid_contract = true;
  m.demand_charge_usd =
      grid.demand_charge_usd_per_kw * std::max(0.0, m.peak_grid_import_kw - grid.peak_so_far_kw);
  m.export_mwh = export_kw * dt / 1000.0;
  m.export_revenue_usd = revenue;
  m.carbon_cost_usd = carbon_usd;
  if (!series.carbon_g_per_kwh.empty()) m.carbon_t = carbon_g / 1e6;
  if (!series.carbon_marginal_g_per_kwh.empty()) m.carbon_marginal_t = marginal_g / 1e6;
  m.cost_usd += m.carbon_cost_usd + m.demand_charge_usd - m.export_revenue_usd;
}

}  // namespace

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
  if (HasGridContract(instance)) AddGridContractMetrics(instance, power, m);
  cost_usd = m.cost_usd;
  m.cost_reduction_pct = reference_cost_usd > 0 && std::isfinite(reference_cost_usd)
                             ? 100.0 * (reference_cost_usd - cost_usd) / reference_cost_usd
                             : 0.0;
  m.grid_mwh = grid_kw * dt / 1000.0;
  m.curtailment_mwh = curtail_kw * dt / 1000.0;
  m.bess_throughput_mwh = battery_kw * dt / 1000.0;
  // With nothing to use nothing was wasted; with no load there is no share to speak of.
  m.re_utilization_pct = renewable_kw > 0 ? 100.0 * used_kw / renewable_kw : 100.0;
  m.green_share_pct = aidc_kw > 0 ? 100.0 * (aidc_kw - grid_kw) / aidc_kw : 0.0;
  // With exports, AIDC energy minus grid energy overstates the green share; the balance
  // used + grid + discharge = AIDC + charge + export is kept in renewable_used_kw.
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
