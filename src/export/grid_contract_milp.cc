// The grid contract in the MILP: the same terms as the engine's power side (power.cc).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "export/internal/grid_contract_milp.h"
#include "export/internal/model_builder.h"

namespace ckptdp::export_internal {
namespace {

int FindColumn(const MilpModel& model, const std::string& name) {
  for (size_t c = 0; c < model.columns.size(); ++c) {
    if (model.columns[c].name == name) return static_cast<int>(c);
  }
  return -1;
}

int FindRow(const MilpModel& model, const std::string& name) {
  for (size_t r = 0; r < model.rows.size(); ++r) {
    if (model.rows[r].name == name) return static_cast<int>(r);
  }
  return -1;
}

ColumnRole SlotRole(ColumnKind kind, int t) {
  ColumnRole r;
  r.kind = kind;
  r.slot = t;
  return r;
}

}  // namespace

void AddGridContract(const Instance& instance, bool battery, MilpModel& model) {
  const int slots = instance.time.slots;
  const double usd_per_kw = instance.time.StepHours() / 1000.0;
  const GridContract& g = instance.grid;
  const Series& series = instance.series;
  // The most a slot can import: the AIDC cap plus charging.
  const double most_kw =
      instance.site.site_power_cap_kw + (battery ? instance.battery.power_kw : 0);
  int peak = -1;
  if (g.demand_charge_usd_per_kw > 0) {
    ColumnRole role;
    role.kind = ColumnKind::kPeak;
    peak = AddColumn(model, "peak", 0, kMilpInfinity, false, g.demand_charge_usd_per_kw, role);
  }
  // The green floor, one row over the horizon: sum_t grid_t - (1 - floor) aidc_t <= 0
  // (green share = 1 - grid energy / AIDC energy, as in the metrics).
  std::vector<std::pair<int, double>> green;
  const double grid_share = 1.0 - g.min_green_share_pct / 100.0;
  for (int t = 0; t < slots; ++t) {
    const int grid = FindColumn(model, absl::StrCat("grid_t", t));
    const int cur = FindColumn(model, absl::StrCat("cur_t", t));
    const int bal = FindRow(model, absl::StrCat("bal_t", t));
    if (grid < 0 || cur < 0 || bal < 0) continue;
    const double cap = instance.ImportCapKw(t);
    if (cap < GridContract{}.grid_import_cap_kw) model.columns[grid].upper = cap;
    if (!series.carbon_g_per_kwh.empty() && g.carbon_price_usd_per_t > 0) {
      // USD/t x g/kWh / 1000 = USD/MWh.
      model.columns[grid].objective +=
          g.carbon_price_usd_per_t * series.carbon_g_per_kwh[t] / 1000.0 * usd_per_kw;
    }
    const double renewable = instance.RenewableKw(t);
    if (instance.ExportCapKw() > 0 && renewable > 0) {
      const int exp = AddColumn(
          model, absl::StrCat("exp_t", t), 0, std::min(instance.ExportCapKw(), renewable), false,
          -series.export_price_usd_per_mwh[t] * usd_per_kw, SlotRole(ColumnKind::kExport, t));
      // Export leaves the bus: ren - cur + grid + dis - ch - exp = AIDC.
      model.rows[bal].columns.push_back(exp);
      model.rows[bal].values.push_back(-1.0);
      // Exported energy is renewable energy that is not curtailed.
      AddRow(model, absl::StrCat("expren_t", t), RowSense::kLessEqual, renewable,
             {{exp, 1.0}, {cur, 1.0}});
    }
    if (g.renewable_first && renewable > 0) {
      // z = 1: may import, may not curtail; z = 0: the reverse.
      const int z = AddColumn(model, absl::StrCat("rf_t", t), 0, 1, true, 0,
                              SlotRole(ColumnKind::kRenewableFirst, t));
      AddRow(model, absl::StrCat("rfgrid_t", t), RowSense::kLessEqual, 0.0,
             {{grid, 1.0}, {z, -std::min(cap, most_kw)}});
      AddRow(model, absl::StrCat("rfcur_t", t), RowSense::kLessEqual, renewable,
             {{cur, 1.0}, {z, renewable}});
    }
    if (peak >= 0) {
      AddRow(model, absl::StrCat("peak_t", t), RowSense::kGreaterEqual, -g.peak_so_far_kw,
             {{peak, 1.0}, {grid, -1.0}});
    }
    const int aidc = FindColumn(model, absl::StrCat("aidc_t", t));
    if (g.min_green_share_pct > 0 && aidc >= 0) {
      green.push_back({grid, 1.0});
      green.push_back({aidc, -grid_share});
    }
  }
  if (!green.empty()) AddRow(model, "green_share", RowSense::kLessEqual, 0.0, std::move(green));
}

}  // namespace ckptdp::export_internal
