// The grid contract's instance fields (issue #19): site keys and optional series columns.
// Kept apart from the paper's fields so that absent keys leave the paper's model untouched.
#ifndef CKPTDP_INSTANCE_INTERNAL_GRID_CONTRACT_H_
#define CKPTDP_INSTANCE_INTERNAL_GRID_CONTRACT_H_

#include <span>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "ckptdp/instance.h"
#include "instance/internal/fields.h"

namespace ckptdp::instance_internal {

// Caps of 1e9 kW (the power limit of every field) mean "no cap".
inline constexpr Field<GridContract> kGridFields[] = {
    {"demand_charge_usd_per_kw", &GridContract::demand_charge_usd_per_kw, Closed(0, 1e6), false},
    {"peak_so_far_kw", &GridContract::peak_so_far_kw, Closed(0, kMaxKw), false},
    {"grid_import_cap_kw", &GridContract::grid_import_cap_kw, Closed(0, kMaxKw), false},
    {"grid_export_cap_kw", &GridContract::grid_export_cap_kw, Closed(0, kMaxKw), false},
    {"carbon_price_usd_per_t", &GridContract::carbon_price_usd_per_t, Closed(0, 1e6), false},
    {"renewable_first", &GridContract::renewable_first, {}, false},
    {"min_green_share_pct", &GridContract::min_green_share_pct, Closed(0, 100), false},
};

inline constexpr Bounds kCarbonSeriesBounds = Closed(0, 1e5);  // g/kWh

// The optional series columns, in file order, with their ranges and members.
struct OptionalColumn {
  std::string_view name;
  std::vector<double> Series::*member;
  Bounds bounds;
};
inline const OptionalColumn kOptionalSeriesColumns[] = {
    {"import_cap_kw", &Series::import_cap_kw, kPowerSeriesBounds},
    {"export_price_usd_per_mwh", &Series::export_price_usd_per_mwh, kPriceSeriesBounds},
    {"carbon_g_per_kwh", &Series::carbon_g_per_kwh, kCarbonSeriesBounds},
    {"carbon_marginal_g_per_kwh", &Series::carbon_marginal_g_per_kwh, kCarbonSeriesBounds},
};

// Site keys of the contract (accepted besides kSiteFields).
std::vector<std::string_view> GridSiteKeys();
// Optional series column names.
std::vector<std::string_view> OptionalSeriesColumnNames();

// Ranges of the contract's fields and its rules between fields: the optional series
// columns have time.slots values in range, and an export price never exceeds the import
// price of its slot (one meter nets import and export; docs/model.md).
absl::Status ValidateGridContract(const GridContract& grid, const Series& series, int slots);

}  // namespace ckptdp::instance_internal

#endif  // CKPTDP_INSTANCE_INTERNAL_GRID_CONTRACT_H_
