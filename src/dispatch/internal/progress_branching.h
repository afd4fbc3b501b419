// Branching on progress (as in time-indexed column generation): "job j has done at least
// k segments by slot t" against "at most k - 1". The progress of a plan at slot t is the
// segment of its state at the start of slot t or, when a train edge runs through that
// instant, the segment the edge started from (the segments checkpointed by then). Every
// plan has one progress per slot, so the two children split the node's plans exactly.
// The job DP enforces a restriction on its states and edges (EdgeCosts::progress_lo/hi):
// on a state's segment at t, and on a train edge's starting segment for every t strictly
// inside it. Only DPs without restart states do (path_dp_restarts.cc keeps run states);
// branch and bound branches on levels elsewhere.
#ifndef CKPTDP_DISPATCH_INTERNAL_PROGRESS_BRANCHING_H_
#define CKPTDP_DISPATCH_INTERNAL_PROGRESS_BRANCHING_H_

#include <vector>

#include "ckptdp/graph.h"
#include "ckptdp/schedule.h"
#include "dispatch/internal/edge_costs.h"

namespace ckptdp::internal {

// The segments `job` has done by the start of `slot` lie in [lo, hi].
struct ProgressRestriction {
  int job = 0;
  int slot = 0;
  int lo = 0;
  int hi = 0;
  friend bool operator==(const ProgressRestriction&, const ProgressRestriction&) = default;
};

inline bool ProgressLimitsSupported(const CheckpointGraph& graph) { return !graph.has_restarts(); }

// Writes the restrictions of `job` among `restrictions` into costs.progress_lo/hi (over
// slots 0..T); clears them when there is none.
void ApplyProgressRestrictions(int job, int segments,
                               const std::vector<ProgressRestriction>& restrictions,
                               EdgeCosts& costs);

// The allowed segment range [lo[ti], hi[ti]] at slot release + ti of the graph's window
// (0..segments where costs has no limits).
void LayerProgressRange(const CheckpointGraph& graph, const EdgeCosts& costs, std::vector<int>& lo,
                        std::vector<int>& hi);

// Narrows [lo, hi] (a train edge's starting segment) to the limits of the slots strictly
// inside the edge, layers (from, to) of the window.
inline void NarrowBySpan(const std::vector<int>& layer_lo, const std::vector<int>& layer_hi,
                         int from, int to, int& lo, int& hi) {
  for (int ti = from + 1; ti < to; ++ti) {
    lo = lo > layer_lo[ti] ? lo : layer_lo[ti];
    hi = hi < layer_hi[ti] ? hi : layer_hi[ti];
  }
}

// A plan's progress at slots release..deadline (deadline - release + 1 entries).
void PlanProgress(const std::vector<Run>& runs, int release, int deadline,
                  std::vector<int>& progress);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_PROGRESS_BRANCHING_H_
