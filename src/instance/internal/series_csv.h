// The series CSV: per-slot PV, wind and price (docs/instance-format.md, "Series CSV").
//
//   # optional comment lines first
//   slot,pv_kw,wind_kw,price_usd_per_mwh
//   0,0,210.5,38.03
//   1,0,198.2,35.29
//
// Slots count 0, 1, 2, ... in order; values are plain decimal numbers (std::from_chars,
// the whole field). Range checks (pv >= 0, ...) are ValidateSeries's job, not the reader's.
#ifndef CKPTDP_INSTANCE_INTERNAL_SERIES_CSV_H_
#define CKPTDP_INSTANCE_INTERNAL_SERIES_CSV_H_

#include <filesystem>
#include <string_view>

#include "absl/status/statusor.h"
#include "ckptdp/instance.h"

namespace ckptdp::instance_internal {

inline constexpr std::string_view kSeriesCsvHeader = "slot,pv_kw,wind_kw,price_usd_per_mwh";

// Parses CSV text that must hold exactly `expected_rows` data rows. Messages start with
// `display_name` and the 1-based line: `x.csv line 5: price_usd_per_mwh: not a number: "abc"`.
// The returned Series has an empty csv_path.
absl::StatusOr<Series> ParseSeriesCsv(std::string_view text, std::string_view display_name,
                                      int expected_rows);

// Reads `file` (NotFoundError if it does not exist) and parses it; sets csv_path to `file`.
absl::StatusOr<Series> ReadSeriesCsv(const std::filesystem::path& file, int expected_rows);

}  // namespace ckptdp::instance_internal

#endif  // CKPTDP_INSTANCE_INTERNAL_SERIES_CSV_H_
