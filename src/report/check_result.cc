// `ckptdp check`: verifies a result JSON against its instance, independently of the solver.
// The rule groups live in report/internal/check_*.cc; this file strings them together.
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "ckptdp/check.h"
#include "ckptdp/modes.h"
#include "report/internal/check_parse.h"
#include "report/internal/check_rules.h"

namespace ckptdp {
namespace {

// The checker indexes the series by slot; a malformed instance must not crash it.
absl::Status RequireSeries(const Instance& instance) {
  const size_t slots = static_cast<size_t>(std::max(instance.time.slots, 0));
  if (instance.series.pv_kw.size() != slots || instance.series.wind_kw.size() != slots ||
      instance.series.price_usd_per_mwh.size() != slots) {
    return absl::InvalidArgumentError(
        absl::StrCat("instance: series must have time.slots = ", slots, " entries each"));
  }
  return absl::OkStatus();
}

}  // namespace

std::string CheckReport::ToText() const {
  if (ok() && !no_schedule_status.empty()) {
    return absl::StrCat("ok: status ", no_schedule_status,
                        ", no schedule to check; the structure and the diagnosis are valid\n");
  }
  if (ok()) return "ok: the result satisfies every checked constraint\n";
  std::string out =
      absl::StrCat(violations.size(), violations.size() == 1 ? " violation:\n" : " violations:\n");
  for (const Violation& v : violations) absl::StrAppend(&out, "  ", v.where, ": ", v.what, "\n");
  return out;
}

absl::StatusOr<CheckReport> CheckResult(const Instance& instance, std::string_view result_json) {
  CKPTDP_ASSIGN_OR_RETURN(const check_internal::ResultRecord result,
                          check_internal::ParseResultRecord(result_json));
  CheckReport report;
  check_internal::CheckHeader(instance, result, report);
  if (!result.has_schedule) {
    report.no_schedule_status = result.status;
    return report;
  }

  CKPTDP_RETURN_IF_ERROR(RequireSeries(instance));
  CKPTDP_ASSIGN_OR_RETURN(const std::vector<JobModes> modes, BuildAllModes(instance));
  check_internal::CheckSite(instance, result, report);
  const check_internal::RecomputedLoad load =
      check_internal::CheckJobs(instance, modes, result, report);
  check_internal::CheckSlots(instance, result, load, report);
  check_internal::CheckMetrics(instance, modes, result, report);
  return report;
}

absl::StatusOr<CheckReport> CheckResultFile(const Instance& instance,
                                            const std::filesystem::path& result_path) {
  std::ifstream in(result_path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot open result file ", result_path.string()));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return absl::DataLossError(absl::StrCat("cannot read result file ", result_path.string()));
  }
  return CheckResult(instance, text.str());
}

}  // namespace ckptdp
