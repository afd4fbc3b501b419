#include "dispatch/internal/progress_branching.h"

#include <algorithm>

namespace ckptdp::internal {

void ApplyProgressRestrictions(int job, int segments,
                               const std::vector<ProgressRestriction>& restrictions,
                               EdgeCosts& costs) {
  costs.progress_lo.clear();
  costs.progress_hi.clear();
  for (const ProgressRestriction& r : restrictions) {
    if (r.job != job) continue;
    if (costs.progress_lo.empty()) {
      costs.progress_lo.assign(costs.slots + 1, 0);
      costs.progress_hi.assign(costs.slots + 1, segments);
    }
    costs.progress_lo[r.slot] = std::max(costs.progress_lo[r.slot], r.lo);
    costs.progress_hi[r.slot] = std::min(costs.progress_hi[r.slot], r.hi);
  }
}

void LayerProgressRange(const CheckpointGraph& g, const EdgeCosts& costs, std::vector<int>& lo,
                        std::vector<int>& hi) {
  const int layers = g.deadline() - g.release() + 1;
  lo.assign(layers, 0);
  hi.assign(layers, g.segments());
  if (!costs.HasProgressLimits()) return;
  for (int ti = 0; ti < layers; ++ti) {
    lo[ti] = std::max(0, costs.progress_lo[g.release() + ti]);
    hi[ti] = std::min(g.segments(), costs.progress_hi[g.release() + ti]);
  }
}

void PlanProgress(const std::vector<Run>& runs, int release, int deadline,
                  std::vector<int>& progress) {
  // S3's runs count work, not segments: no progress to record.
  for (const Run& r : runs) {
    if (r.from_segment < 0) {
      progress.clear();
      return;
    }
  }
  progress.assign(deadline - release + 1, 0);
  // Runs are in time order: before a run's start the progress is the segment it starts
  // from; from its start up to (not including) its end as well; at its end its last.
  int t = release, done = 0;
  for (const Run& r : runs) {
    for (; t < r.end_slot; ++t) progress[t - release] = t < r.start_slot ? done : r.from_segment;
    done = r.to_segment;
  }
  for (; t <= deadline; ++t) progress[t - release] = done;
}

}  // namespace ckptdp::internal
