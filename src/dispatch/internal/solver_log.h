// The engine's log, in the style of HiGHS and CBC (docs/engine.md, "The log"): a row when
// something changes (a new incumbent, a bound that closes a good part of the gap), the
// other rows throttled by time, the header reprinted every 20 rows. One log spans every
// phase of a solve (the S4 warm start, the root, neighbourhood search, branch and bound).
#ifndef CKPTDP_DISPATCH_INTERNAL_SOLVER_LOG_H_
#define CKPTDP_DISPATCH_INTERNAL_SOLVER_LOG_H_

#include <chrono>
#include <limits>
#include <ostream>
#include <string_view>

namespace ckptdp::internal {

// Log levels of SolveOptions::log_level.
inline constexpr int kLogQuiet = 0;
inline constexpr int kLogDefault = 1;   // changes, and other rows throttled
inline constexpr int kLogEveryRow = 2;  // every iteration, every 100th node

struct LogRow {
  const char* phase = "";                                  // "root", "lns" or "b&b"
  int iterations = 0;                                      // Lagrangian iterations at the root
  int nodes = 0;                                           // branch-and-bound nodes solved
  int open = 0;                                            // branch-and-bound nodes waiting
  double dual = std::numeric_limits<double>::quiet_NaN();  // this iteration's dual value
  double bound = -std::numeric_limits<double>::infinity();
  double incumbent = std::numeric_limits<double>::infinity();
};

class SolverLog {
 public:
  using Clock = std::chrono::steady_clock;
  // `out` may be null (no log); `level` as in SolveOptions::log_level.
  SolverLog(std::ostream* out, int level, Clock::time_point start)
      : out_(level > kLogQuiet ? out : nullptr), level_(level), start_(start) {}

  // A line of its own, e.g. "warm start: solving S4 first". Starts a new scenario: the
  // next incumbent and bound are news again.
  void Note(std::string_view text);
  // Prints `row` if it brings news (marked '*' for a new incumbent, '+' for a bound that
  // closes half the gap last shown), or, if it is a `progress_point`, at level 2
  // or when the throttle allows. `text`, when given, is appended to the row.
  void Offer(const LogRow& row, std::string_view text = {}, bool progress_point = true);

 private:
  void Print(char mark, const LogRow& row, std::string_view text);

  std::ostream* out_;
  int level_;
  Clock::time_point start_;
  double last_time_s_ = -std::numeric_limits<double>::infinity();
  double shown_incumbent_ = std::numeric_limits<double>::infinity();
  double shown_gap_ = std::numeric_limits<double>::infinity();
  int rows_since_header_ = -1;  // -1: no header yet
};

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_SOLVER_LOG_H_
