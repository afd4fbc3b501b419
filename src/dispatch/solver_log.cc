#include "dispatch/internal/solver_log.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_format.h"
#include "ckptdp/result.h"
#include "dispatch/internal/evaluation.h"

namespace ckptdp::internal {
namespace {

// Rows without news: at most one a second, and once the solve has run a while, at most one
// per kThrottleShare of the time elapsed (1, 1.5, 2.25, ... s), so that a ten times longer
// solve adds about six rows and the default paper solve fits a page (docs/engine.md).
constexpr double kThrottleMinS = 1.0;
constexpr double kThrottleShare = 0.5;
// A better bound is news when the gap it leaves is at most this share of the gap last shown.
constexpr double kBoundNewsShare = 0.5;
constexpr int kRowsPerHeader = 20;

std::string Number(double v) {
  return std::isfinite(v) ? absl::StrFormat("%14.4f", v) : absl::StrFormat("%14s", "-");
}

}  // namespace

void SolverLog::Note(std::string_view text) {
  shown_incumbent_ = std::numeric_limits<double>::infinity();
  shown_gap_ = std::numeric_limits<double>::infinity();
  if (out_ == nullptr) return;
  *out_ << text << "\n";
}

void SolverLog::Offer(const LogRow& row, std::string_view text, bool progress_point) {
  if (out_ == nullptr) return;
  const bool has_incumbent = std::isfinite(row.incumbent);
  const double gap =
      has_incumbent && std::isfinite(row.bound) ? RelativeGap(row.incumbent, row.bound) : NAN;
  char mark = ' ';
  if (has_incumbent && Improves(row.incumbent, shown_incumbent_)) {
    mark = '*';
  } else if (std::isfinite(gap) && gap < kBoundNewsShare * shown_gap_) {
    mark = '+';
  }
  const double now_s = SecondsSince(start_);
  const double interval_s = std::max(kThrottleMinS, kThrottleShare * now_s);
  if (mark == ' ' &&
      (!progress_point || (level_ < kLogEveryRow && now_s - last_time_s_ < interval_s))) {
    return;
  }
  if (has_incumbent) shown_incumbent_ = row.incumbent;
  if (std::isfinite(gap)) shown_gap_ = gap;
  last_time_s_ = now_s;
  Print(mark, row, text);
}

void SolverLog::Print(char mark, const LogRow& row, std::string_view text) {
  if (rows_since_header_ < 0 || rows_since_header_ >= kRowsPerHeader) {
    *out_ << absl::StrFormat("  %-5s %6s %7s %7s %14s %14s %14s %10s %9s\n", "phase", "iter",
                             "nodes", "open", "dual", "bound", "incumbent", "gap", "time");
    rows_since_header_ = 0;
  }
  ++rows_since_header_;
  const bool gap_known = std::isfinite(row.incumbent) && std::isfinite(row.bound);
  const std::string gap =
      gap_known ? absl::StrFormat("%9.4f%%", 100.0 * RelativeGap(row.incumbent, row.bound))
                : absl::StrFormat("%10s", "-");
  *out_ << absl::StrFormat("%c %-5s %6d %7d %7d %s %s %s %s %8.2fs", mark, row.phase,
                           row.iterations, row.nodes, row.open, Number(row.dual), Number(row.bound),
                           Number(row.incumbent), gap, SecondsSince(start_));
  if (!text.empty()) *out_ << "  " << text;
  *out_ << "\n";
}

}  // namespace ckptdp::internal
