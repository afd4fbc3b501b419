// The rest of the horizon as an instance of its own: the state a rolling run carries over.
//
// The state is, per job, the segments completed and the slot from which it may be planned
// again (the end of its last committed train edge), and the battery's state of charge. The
// sub-problem covers slots [origin, T) of the original instance: each unfinished job keeps
// its descriptor with its remaining segments and the matching share of its compute, its
// release moved to the slot it is free from, and the battery starts at the SoC reached and
// must end at the original E_T. Nothing of this is a public instance field; a job state
// given at t = 0 (the `initial` of the restart-overheads work) would replace the remaining-
// segments rewrite with the job's own progress field.
#ifndef CKPTDP_ROLLING_INTERNAL_SUB_PROBLEM_H_
#define CKPTDP_ROLLING_INTERNAL_SUB_PROBLEM_H_

#include <vector>

#include "ckptdp/graph.h"
#include "ckptdp/instance.h"
#include "ckptdp/modes.h"
#include "ckptdp/schedule.h"
#include "ckptdp/status.h"

namespace ckptdp::rolling_internal {

struct JobState {
  int done_segments = 0;  // completed checkpoint segments
  int free_from = 0;      // the job may train again from this slot on
};

struct SubProblem {
  Instance instance;  // slots [origin, end) of the original
  int origin = 0;
  int end = 0;
  std::vector<int> job_of;  // sub-problem job -> original job
};

// Whether `instance` can be rolled: eta_0 explicit (the calibration would re-fit it to each
// shortened window, changing every edge duration), each job's iterations a multiple of its
// segments (remaining work is whole iterations), no max_pauses (pauses are not carried).
absl::Status CheckRollable(const Instance& instance, const std::vector<JobModes>& modes);

// The first slot after `origin` that no unfinished job's window straddles (T if none): the
// end of the decision horizon. Jobs released from it on keep their plan until a later
// re-solve reaches them; the slots are not shared, so only the battery couples the parts.
int DecisionHorizonEnd(const Instance& instance, const std::vector<JobState>& states, int origin);

// The sub-problem on slots [origin, end) of `series` (the original's slots; sliced here),
// the battery from `soc_kwh` to `soc_end_kwh`. Jobs already done or released at or after
// `end` are left out; a job whose deadline has passed unfinished is left out too (the
// caller reports it). Internal if a sub-job's modes or segment work differ from
// the original's (the carried state would then not be exact).
absl::StatusOr<SubProblem> BuildSubProblem(const Instance& original,
                                           const std::vector<JobModes>& modes,
                                           const std::vector<JobState>& states, int origin, int end,
                                           double soc_kwh, double soc_end_kwh,
                                           const Series& series);

// The runs of `plan` (original slots and segments) that start at or after the origin, in the
// sub-problem's terms: the previous plan offered as a warm start.
Schedule ToSubSchedule(const SubProblem& sub, const std::vector<JobState>& states,
                       const Schedule& plan);

// `plan` with every run of the sub-problem's jobs that starts at or after the origin
// replaced by `sub_schedule`
// (sub-problem terms) mapped back to original slots and segments.
Schedule MergeSubSchedule(const SubProblem& sub, const std::vector<JobState>& states,
                          const Schedule& plan, const Schedule& sub_schedule);

// The first slot >= `slot` at which no run of `plan` is in progress: a run in progress is
// cut at its first checkpoint that ends on a slot boundary at or after `slot` (when the two
// parts take exactly the slots of the whole: same mode, no pause, so the load is unchanged;
// `plan` is updated), or else committed whole and the slot moved to its end. `graphs` are
// the jobs' checkpoint graphs (edge durations).
int CommitUpTo(Schedule& plan, const std::vector<CheckpointGraph>& graphs, int slot);

// The states after executing every run of `plan` that starts before `slot`.
std::vector<JobState> StatesAt(const Instance& instance, const Schedule& plan, int slot);

}  // namespace ckptdp::rolling_internal

#endif  // CKPTDP_ROLLING_INTERNAL_SUB_PROBLEM_H_
