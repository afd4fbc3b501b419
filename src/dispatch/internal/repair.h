// Primal recovery for the Lagrangian engine: schedules that meet the shared GPU and power
// limits, built from the relaxed plans of the dual, and improved one job at a time. Used at
// the root (lagrangian.cc) and at the nodes of branch and bound.
#ifndef CKPTDP_DISPATCH_INTERNAL_REPAIR_H_
#define CKPTDP_DISPATCH_INTERNAL_REPAIR_H_

#include <vector>

#include "dispatch/internal/evaluation.h"
#include "dispatch/internal/multipliers.h"
#include "dispatch/internal/stop_rules.h"

namespace ckptdp::internal {

// Builds a capacity-feasible schedule from relaxed plans: plans that fit are kept (largest
// GPU-slot footprint first), the others are re-routed against the residual capacity under
// `prices`. False if some job cannot be placed or the deadline passes (each re-route is a
// full subproblem solve: seconds on large cases).
//
// With `place_first` (kept by the caller from one repair to the next; may start empty), when
// this plain repair fails, the job it could not place is appended to the list and the
// repair tried again, up to kRepairRetries times: the listed jobs first, then the others by
// shortest window (by footprint among equal windows). Where the plain repair succeeds its
// schedule is the result, list or not. On a tight fleet the relaxed plans overfill the
// cheap slots and most jobs are re-routed; the jobs with short windows, re-routed late,
// then find them full (on the 4096-job quarter-hour week every repair of S4's Lagrangian
// phase failed so, and its first schedule, by footprint, was never improved: docs/
// benchmarks.md, "Repairs that learn which jobs go first").
//
// The repair is serial: `work` is one scratch workspace, used for every job it re-routes
// (a job's DP keeps nothing from one solve to the next), so a repair may run beside the
// job DPs of the next Lagrangian iteration, which use the per-thread Workspaces.
inline constexpr int kRepairRetries = 3;
bool RepairPlans(const ScenarioContext& context, JobWorkspace& work,
                 const std::vector<PathSolution>& plans, const Multipliers& prices,
                 const Deadline& deadline, EdgeCosts& scratch, Schedule& out,
                 std::vector<int>* place_first = nullptr);

// Primal improvement used by the engine (exposed for tests): re-routes one job at a time
// against the exact marginal cost of the other jobs' load until no move helps. The search
// is serial, but on `threads` > 1 it works out the moves of a few jobs at a time in
// parallel (each from the same state, up to the first one kept): the result is the same
// for every thread count.
absl::Status ImproveByLocalSearch(const ScenarioContext& context, Workspaces& work,
                                  Evaluated& current, const Deadline& deadline, int threads);

// Fallback when repair fails under tight capacity: place the jobs one by one, largest
// footprint first, each on the path that uses the fewest GPU-slots of the residual
// capacity (ties broken by `prices`, scaled down to stay tie-breakers). False if a job
// cannot be placed or the deadline passes: it solves every job twice, serially (in the one
// scratch workspace `work`, as RepairPlans).
bool PlaceByFootprint(const ScenarioContext& context, JobWorkspace& work, const Multipliers& prices,
                      const Deadline& deadline, EdgeCosts& scratch, Schedule& out);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_REPAIR_H_
