// The rate bound: a proof of infeasibility of the shared GPU capacity that keeps the
// integral modes but forgets checkpoints (issue 13; step 2 of infeasibility.h).
//
// Whatever its path, job j trains in one mode per slot of its window and must deliver its
// compute C_j, so share_j = sum_t X(mode_jt) dt / C_j >= 1, while in every slot the modes
// fit the GPU capacity together. For weights w >= 0 with sum w = 1,
//   F(w) = sum_j w_j - sum_t max_{modes fitting in slot t} sum_j w_j X_j dt / C_j
// is then <= 0 for any schedule, so F(w) > 0 proves infeasibility. It has one weight per
// job, so it converges in a few dozen steps where the decomposition's thousands of prices
// stall; on the paper case it proves 1272 GPUs infeasible (the LP bound does not).
#ifndef CKPTDP_DISPATCH_INTERNAL_RATE_BOUND_H_
#define CKPTDP_DISPATCH_INTERNAL_RATE_BOUND_H_

#include <chrono>
#include <vector>

#include "dispatch/internal/evaluation.h"

namespace ckptdp::internal {

// True when some weights prove F > 0 for the jobs `jobs` of `context` (a subset relaxes
// the instance, so a proof on it holds for the instance), with a margin of 1e-9 of the
// magnitudes summed, far above round-off. Adds its iterations to `iterations`. False when
// the deadline or `max_iterations` come first, or when the best modes per slot deliver
// every job's compute (the relaxation is feasible).
bool ProveByRates(const ScenarioContext& context, const std::vector<int>& jobs,
                  std::chrono::steady_clock::time_point deadline, int max_iterations,
                  int& iterations);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_RATE_BOUND_H_
