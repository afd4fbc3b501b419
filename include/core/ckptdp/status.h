// Status conventions shared by every stage of ckptdp (the core stage, below all others).
//
// Two statuses, as in HiGHS: absl::Status says whether a call worked (bad input,
// I/O failure, internal error); SolveStatus says what a successful solve proved.
#ifndef CKPTDP_STATUS_H_
#define CKPTDP_STATUS_H_

#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

// Debian's Abseil 20220623 has no ABSL_RETURN_IF_ERROR; this is the small subset we use.
#define CKPTDP_RETURN_IF_ERROR(expr)                 \
  do {                                               \
    ::absl::Status ckptdp_status_ = (expr);          \
    if (!ckptdp_status_.ok()) return ckptdp_status_; \
  } while (false)

#define CKPTDP_CONCAT_INNER_(a, b) a##b
#define CKPTDP_CONCAT_(a, b) CKPTDP_CONCAT_INNER_(a, b)
#define CKPTDP_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(*tmp)
// CKPTDP_ASSIGN_OR_RETURN(auto x, MakeX()); returns MakeX()'s status on error.
#define CKPTDP_ASSIGN_OR_RETURN(lhs, expr) \
  CKPTDP_ASSIGN_OR_RETURN_IMPL_(CKPTDP_CONCAT_(ckptdp_statusor_, __LINE__), lhs, expr)

namespace ckptdp {

// What a solve proved about its result.
// When a limit or an interrupt stops the search, the status names it; the incumbent (if
// any) and the bound proven so far are reported with it.
enum class SolveStatus {
  kOptimal,         // incumbent within the requested gap of the lower bound
  kFeasible,        // an incumbent; the bound stopped improving above the gap target
  kInfeasible,      // proven: no schedule meets the constraints
  kTimeLimit,       // stopped by --time-limit
  kIterationLimit,  // the Lagrangian iterations (--max-iterations, --stall-iterations) ran out
                    // without a proof, and no later phase continued the search
  kNodeLimit,       // branch and bound used --max-nodes nodes without closing the gap
  kInterrupted,     // stopped on request (SIGINT or SIGTERM in the CLI)
};

// True for the statuses that say why the search stopped early (time, iteration or node
// limit, interrupt): such a result may come without an incumbent.
bool StoppedEarly(SolveStatus status);

// Relative gap as reported everywhere: (incumbent - bound) / max(1, |incumbent|). The one
// gap rule: kOptimal means this is within the requested gap.
double RelativeGap(double incumbent, double bound);

// A C string (not string_view): Debian's Abseil has its own absl::string_view, which
// absl::StrCat would not accept from a std::string_view.
const char* SolveStatusName(SolveStatus status);

}  // namespace ckptdp

#endif  // CKPTDP_STATUS_H_
