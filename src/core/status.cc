// The two statuses' names and the gap rule (ckptdp/status.h).
#include "ckptdp/status.h"

#include <algorithm>
#include <cmath>

namespace ckptdp {

double RelativeGap(double incumbent, double bound) {
  return (incumbent - bound) / std::max(1.0, std::abs(incumbent));
}

const char* SolveStatusName(SolveStatus status) {
  switch (status) {
    case SolveStatus::kOptimal:
      return "optimal";
    case SolveStatus::kFeasible:
      return "feasible";
    case SolveStatus::kInfeasible:
      return "infeasible";
    case SolveStatus::kTimeLimit:
      return "time_limit";
    case SolveStatus::kIterationLimit:
      return "iteration_limit";
    case SolveStatus::kNodeLimit:
      return "node_limit";
    case SolveStatus::kInterrupted:
      return "interrupted";
  }
  return "unknown";
}

bool StoppedEarly(SolveStatus status) {
  return status == SolveStatus::kTimeLimit || status == SolveStatus::kIterationLimit ||
         status == SolveStatus::kNodeLimit || status == SolveStatus::kInterrupted;
}

}  // namespace ckptdp
