// Report: a Result written out as JSON, CSV and a human summary (docs/result-format.md).
//
// Output files are written atomically (temporary file, then rename) so a failure never
// leaves a partial file. The report stage does not link the solver: it only reads Results
// (ckptdp/result.h). The independent checker (ckptdp/check.h) is in the same stage.
#ifndef CKPTDP_REPORT_H_
#define CKPTDP_REPORT_H_

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "ckptdp/result.h"
#include "ckptdp/status.h"

namespace ckptdp {

// One JSON object as documented in docs/result-format.md.
std::string ResultToJson(const Instance& instance, const std::vector<JobModes>& modes,
                         const Result& result);
// Per-slot table: slot,renewable_kw,price_usd_per_mwh,aidc_kw,grid_kw,curtailment_kw,...
std::string SlotsCsv(const Instance& instance, const Result& result);
// A short human summary (scenario, status, objective, bound, gap, metrics, runs per job).
std::string HumanSummary(const Instance& instance, const std::vector<JobModes>& modes,
                         const Result& result);

// Writes `contents` to `path` through a temporary file in the same directory and a rename.
absl::Status WriteFileAtomically(const std::filesystem::path& path, std::string_view contents);

}  // namespace ckptdp

#endif  // CKPTDP_REPORT_H_
