// Which jobs' subproblems a rank solves in a distributed run (docs/distributed.md).
#ifndef CKPTDP_DISPATCH_INTERNAL_JOB_PARTITION_H_
#define CKPTDP_DISPATCH_INTERNAL_JOB_PARTITION_H_

#include <vector>

#include "dispatch/internal/evaluation.h"

namespace ckptdp::internal {

// The DP work of a job's subproblem, up to a common factor: the slots of its window times
// its modes times its checkpoint layers (S3: one), which is how its states and edges grow.
double EstimatedDpWork(const ScenarioContext& context, int job);

// The jobs of rank `rank` among `ranks`, in increasing order: largest estimated work first,
// each to the rank with the least work so far (ties to the lower rank). The same on every
// rank, and every job belongs to exactly one rank.
std::vector<int> JobsOfRank(const ScenarioContext& context, int rank, int ranks);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_JOB_PARTITION_H_
