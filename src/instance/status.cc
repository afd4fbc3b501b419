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
  }
  return "unknown";
}

}  // namespace ckptdp
