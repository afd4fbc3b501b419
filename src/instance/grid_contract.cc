// Validation of the grid contract's fields (see internal/grid_contract.h).
#include "instance/internal/grid_contract.h"

#include <string>

#include "instance/internal/messages.h"
#include "instance/internal/validate.h"

namespace ckptdp::instance_internal {

std::vector<std::string_view> GridSiteKeys() {
  std::vector<std::string_view> keys;
  for (const auto& field : kGridFields) keys.push_back(field.key);
  return keys;
}

std::vector<std::string_view> OptionalSeriesColumnNames() {
  std::vector<std::string_view> names;
  for (const OptionalColumn& column : kOptionalSeriesColumns) names.push_back(column.name);
  return names;
}

absl::Status ValidateGridContract(const GridContract& grid, const Series& series, int slots) {
  CKPTDP_RETURN_IF_ERROR(CheckFields(grid, "site", kGridFields));
  for (const OptionalColumn& column : kOptionalSeriesColumns) {
    const std::vector<double>& values = series.*column.member;
    if (values.empty()) continue;
    CKPTDP_RETURN_IF_ERROR(ValidateSeriesColumn(series, values, column.name, slots, column.bounds));
  }
  const std::vector<double>& export_price = series.export_price_usd_per_mwh;
  for (std::size_t t = 0; t < export_price.size() && t < series.price_usd_per_mwh.size(); ++t) {
    if (export_price[t] <= series.price_usd_per_mwh[t]) continue;
    const std::string path = series.csv_path.empty()
                                 ? IndexPath("series.export_price_usd_per_mwh", t)
                                 : Cat("series.csv: ", Printable(series.csv_path, 300), " slot ", t,
                                       ": export_price_usd_per_mwh");
    return PathError(path, Cat("must be <= price_usd_per_mwh of the slot (",
                               FormatNumber(series.price_usd_per_mwh[t]), "), got ",
                               FormatNumber(export_price[t]),
                               " (one meter nets import and export, so a higher export price "
                               "would pay for importing to export)"));
  }
  return absl::OkStatus();
}

}  // namespace ckptdp::instance_internal
