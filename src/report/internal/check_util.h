// Shared helpers of the result checker: tolerances, comparisons and violation paths.
#ifndef CKPTDP_REPORT_INTERNAL_CHECK_UTIL_H_
#define CKPTDP_REPORT_INTERNAL_CHECK_UTIL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "ckptdp/check.h"

namespace ckptdp::check_internal {

// 1e-6 relative, 1e-6 absolute below magnitude 1 (see check.h).
inline constexpr double kTolerance = 1e-6;
// FLOP bookkeeping is exact arithmetic in any solver, so it gets a much tighter slack.
inline constexpr double kWorkTolerance = 1e-9;

inline double Slack(double a, double b, double tol) {
  return tol * std::max({1.0, std::abs(a), std::abs(b)});
}
inline bool Near(double a, double b, double tol = kTolerance) {
  return std::abs(a - b) <= Slack(a, b, tol);
}
inline bool AtMost(double a, double b, double tol = kTolerance) {
  return a <= b + Slack(a, b, tol);
}

// ceil(x), but a quotient within 1e-9 (relative) of an integer is that integer: run lengths
// are ratios of FLOP counts whose exact value is often an integer spoilt by round-off.
inline int64_t ForgivingCeil(double x) {
  const double nearest = std::round(x);
  if (std::abs(x - nearest) <= kWorkTolerance * std::max(1.0, std::abs(x))) {
    return static_cast<int64_t>(nearest);
  }
  return static_cast<int64_t>(std::ceil(x));
}

// Numbers in messages: enough digits to see a 1e-6 difference.
inline std::string Num(double x) { return absl::StrFormat("%.10g", x); }

inline std::string JobPath(int j) { return absl::StrCat("jobs[", j, "]"); }
inline std::string RunPath(int j, int r) { return absl::StrCat("jobs[", j, "].runs[", r, "]"); }
inline std::string SlotPath(int t) { return absl::StrCat("slots[", t, "]"); }

inline void Flag(CheckReport& report, std::string where, std::string what) {
  report.violations.push_back({std::move(where), std::move(what)});
}

// "<field> is A, expected B" when a reported real differs from its recomputed value.
inline void ExpectNear(CheckReport& report, const std::string& where, const std::string& field,
                       double reported, double expected, const std::string& why) {
  if (Near(reported, expected)) return;
  Flag(report, where,
       absl::StrCat(field, " is ", Num(reported), ", expected ", Num(expected), " (", why, ")"));
}

}  // namespace ckptdp::check_internal

#endif  // CKPTDP_REPORT_INTERNAL_CHECK_UTIL_H_
