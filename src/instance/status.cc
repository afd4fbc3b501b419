#include "ckptdp/status.h"

namespace ckptdp {

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
