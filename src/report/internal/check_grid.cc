// Grid-contract checks (issue #19; docs/model.md, "Grid contract"): caps, exports, the
// renewable-first rule, the peak, the demand charge and the carbon accounting, all
// recomputed from the slot table and the instance.
#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "report/internal/check_rules.h"
#include "report/internal/check_util.h"

namespace ckptdp::check_internal {
namespace {

void ExpectContractMetric(CheckReport& report, const char* key,
                          const std::optional<double>& reported, double expected) {
  if (!reported.has_value()) {
    Flag(report, absl::StrCat("metrics.", key),
         absl::StrCat("is missing or null, recomputed from the slots: ", Num(expected)));
  } else if (!Near(*reported, expected)) {
    Flag(report, absl::StrCat("metrics.", key),
         absl::StrCat("is ", Num(*reported), ", recomputed from the slots: ", Num(expected)));
  }
}

}  // namespace

double CheckGridContract(const Instance& instance, const ResultRecord& result,
                         CheckReport& report) {
  const GridContract& grid = instance.grid;
  const Series& series = instance.series;
  const double dt = instance.time.StepHours();
  const double export_cap = instance.ExportCapKw();
  double peak = 0, export_kwh = 0, revenue = 0, carbon_g = 0, marginal_g = 0;
  double aidc_kw = 0, grid_kw = 0;
  const int n = std::min(static_cast<int>(result.slots.size()), instance.time.slots);
  for (int t = 0; t < n; ++t) {
    const SlotRecord& s = result.slots[t];
    const std::string where = SlotPath(t);
    if (!AtMost(s.grid_kw, instance.ImportCapKw(t))) {
      Flag(report, where,
           absl::StrCat("grid_kw ", Num(s.grid_kw), " exceeds the import cap ",
                        Num(instance.ImportCapKw(t)), " kW"));
    }
    if (!AtMost(s.export_kw, export_cap)) {
      Flag(report, where,
           absl::StrCat("export_kw ", Num(s.export_kw), " exceeds the export cap ", Num(export_cap),
                        series.export_price_usd_per_mwh.empty() ? " (no export price given)" : ""));
    }
    if (grid.renewable_first && !Near(s.grid_kw, 0.0) && !Near(s.curtailment_kw, 0.0)) {
      Flag(report, where,
           absl::StrCat("imports ", Num(s.grid_kw), " kW while curtailing ", Num(s.curtailment_kw),
                        " kW, which renewable_first forbids"));
    }
    peak = std::max(peak, s.grid_kw);
    aidc_kw += s.aidc_kw;
    grid_kw += s.grid_kw;
    export_kwh += s.export_kw * dt;
    if (!series.export_price_usd_per_mwh.empty()) {
      revenue += series.export_price_usd_per_mwh[t] * s.export_kw * dt / 1000.0;
    }
    if (!series.carbon_g_per_kwh.empty()) carbon_g += series.carbon_g_per_kwh[t] * s.grid_kw * dt;
    if (!series.carbon_marginal_g_per_kwh.empty()) {
      marginal_g += series.carbon_marginal_g_per_kwh[t] * s.grid_kw * dt;
    }
  }
  if (grid.min_green_share_pct > 0) {
    // The metrics' definition: 100 (AIDC energy - grid energy) / AIDC energy.
    const double share = aidc_kw > 0 ? 100.0 * (aidc_kw - grid_kw) / aidc_kw : 0.0;
    if (!AtMost(grid.min_green_share_pct, share)) {
      Flag(report, "slots",
           absl::StrCat("green share ", Num(share),
                        " % (recomputed from the slots) is below "
                        "min_green_share_pct ",
                        Num(grid.min_green_share_pct), " %"));
    }
  }
  const MetricsRecord& m = result.metrics;
  const double demand = grid.demand_charge_usd_per_kw * std::max(0.0, peak - grid.peak_so_far_kw);
  // USD/t x t.
  const double carbon_usd = grid.carbon_price_usd_per_t * carbon_g / 1e6;
  ExpectContractMetric(report, "peak_grid_import_kw", m.peak_grid_import_kw, peak);
  ExpectContractMetric(report, "demand_charge_usd", m.demand_charge_usd, demand);
  ExpectContractMetric(report, "export_mwh", m.export_mwh, export_kwh / 1000.0);
  ExpectContractMetric(report, "export_revenue_usd", m.export_revenue_usd, revenue);
  ExpectContractMetric(report, "carbon_cost_usd", m.carbon_cost_usd, carbon_usd);
  if (!series.carbon_g_per_kwh.empty()) {
    ExpectContractMetric(report, "carbon_t", m.carbon_t, carbon_g / 1e6);
  }
  if (!series.carbon_marginal_g_per_kwh.empty()) {
    ExpectContractMetric(report, "carbon_marginal_t", m.carbon_marginal_t, marginal_g / 1e6);
  }
  return carbon_usd + demand - revenue;
}

}  // namespace ckptdp::check_internal
