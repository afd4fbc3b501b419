// Section validators behind ValidateInstance. The JSON reader calls them section by
// section as it goes, so a file's errors come in file order (and time.slots is known to
// be sane before a CSV of that many rows is read).
#ifndef CKPTDP_INSTANCE_INTERNAL_VALIDATE_H_
#define CKPTDP_INSTANCE_INTERNAL_VALIDATE_H_

#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "ckptdp/instance.h"
#include "instance/internal/fields.h"

namespace ckptdp::instance_internal {

// Names: at most kMaxNameBytes bytes, no control characters (they would break the
// one-line logs and CSV outputs); empty only if `allow_empty`.
absl::Status ValidateName(std::string_view path, std::string_view name, bool allow_empty);

absl::Status ValidateSite(const Site& site);
absl::Status ValidateTime(const TimeGrid& time);
absl::Status ValidateSeries(const Series& series, int slots);
// One series column: `slots` values within `bounds`; errors name the slot (CSV) or index.
absl::Status ValidateSeriesColumn(const Series& series, const std::vector<double>& values,
                                  std::string_view column, int slots, const Bounds& bounds);
absl::Status ValidateCosts(const Costs& costs);
absl::Status ValidateBattery(const Battery& battery);
absl::Status ValidateModel(const ModelCoefficients& model);
// One job on its own; `path` is "jobs[i]".
absl::Status ValidateJob(const Job& job, std::string_view path, const TimeGrid& time);
// What concerns the list: its size and unique names.
absl::Status ValidateJobList(const std::vector<Job>& jobs);

// The names written in the file for ActivationSchedule.
std::string_view ActivationScheduleName(ActivationSchedule schedule);

}  // namespace ckptdp::instance_internal

#endif  // CKPTDP_INSTANCE_INTERNAL_VALIDATE_H_
