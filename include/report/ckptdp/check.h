// Check: an independent verifier of a result JSON against its instance (`ckptdp check`).
//
// The checker shares only the instance (instance.h) and the mode model (modes.h) with the
// solver. Everything else -- run lengths, per-slot load, power balance, battery state,
// metrics, the objective and the fixed-baseline cost of S1 -- is recomputed here from the
// paper's model (sections IV-A to IV-D) and the result format (docs/result-format.md), so a
// bug in the engine or the writer shows up as a named violation instead of being repeated.
//
// Tolerances. Two reals are equal when |a - b| <= 1e-6 * max(1, |a|, |b|): 1e-6 relative,
// and 1e-6 absolute (kW, kWh, USD, ...) for values below 1. Inequalities (a <= b) allow the
// same slack. FLOP accounting in S3 (delivered work against the daily compute and against
// what a run can deliver) uses 1e-9 relative. A run length is ceil(work / (X * step)) where
// a quotient within 1e-9 (relative) of an integer counts as that integer.
#ifndef CKPTDP_CHECK_H_
#define CKPTDP_CHECK_H_

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "ckptdp/instance.h"
#include "ckptdp/status.h"

namespace ckptdp {

// One broken rule. `where` is a JSON path into the result ("jobs[1].runs[3]", "slots[7]",
// "metrics.cost_usd", "site.pue"); `what` says what is wrong, with both numbers.
struct Violation {
  std::string where;
  std::string what;
};

struct CheckReport {
  std::vector<Violation> violations;
  // The result's status when it has no schedule (only its structure was checked), else "".
  std::string no_schedule_status;

  bool ok() const { return violations.empty(); }
  // "ok: ..." or a count line followed by one "  where: what" line per violation.
  std::string ToText() const;
};

// Verifies `result_json` against `instance`. Returns an error status only when the text is
// not JSON, lacks a required key or has a key of the wrong type (the message names the key's
// path), names an unknown scenario or status, or when the instance's modes cannot be built.
// Every model violation goes into the report. A result with status "infeasible" (or
// "time_limit" without an incumbent) is checked for structure only.
absl::StatusOr<CheckReport> CheckResult(const Instance& instance, std::string_view result_json);

// Reads the file and calls CheckResult.
absl::StatusOr<CheckReport> CheckResultFile(const Instance& instance,
                                            const std::filesystem::path& result_path);

}  // namespace ckptdp

#endif  // CKPTDP_CHECK_H_
