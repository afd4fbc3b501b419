// The fixed baseline trajectory of S1, S2 and S5: every job runs its baseline mode
// continuously from its release until its compute is done.
#ifndef CKPTDP_DISPATCH_INTERNAL_BASELINE_H_
#define CKPTDP_DISPATCH_INTERNAL_BASELINE_H_

#include <string>
#include <vector>

#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "ckptdp/schedule.h"

namespace ckptdp::internal {

struct BaselinePlan {
  Schedule schedule;
  std::string infeasible_reason;  // empty when every job fits its window and boundary rule
};

// S1 records one run 0 -> K per job. With `record_checkpoints` (S2) the run is split at
// every checkpoint that falls on a slot boundary: the same trajectory, with the
// checkpoint states recorded, and no waiting.
BaselinePlan BaselineSchedule(const Instance& instance, const std::vector<JobModes>& modes,
                              bool record_checkpoints);

// The same trajectory without checkpoints, as S3 records it: each run keeps its slots and
// mode and delivers work = slots * throughput * step.
Schedule AsIdealSchedule(const Instance& instance, const std::vector<JobModes>& modes,
                         const Schedule& schedule);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_BASELINE_H_
