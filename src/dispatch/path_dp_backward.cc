#include "dispatch/internal/path_dp_backward.h"

#include <algorithm>
#include <limits>

#include "dispatch/internal/path_dp.h"
#include "dispatch/internal/progress_branching.h"

namespace ckptdp::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The segments in [lo, hi] from which a wait out of slot `tau` (layer ti) is allowed.
bool WaitRange(const CheckpointGraph& g, const EdgeCosts& costs, const std::vector<int>& k_lo,
               const std::vector<int>& k_hi, int ti, int& lo, int& hi) {
  if (!costs.WaitAllowed(g.release() + ti)) return false;
  lo = k_lo[ti + 1];
  hi = std::min(k_hi[ti + 1], g.allow_wait() ? g.segments() - 1 : -1);  // checkpoint waits
  return true;
}

bool BoundaryIdleAllowed(const CheckpointGraph& g, const std::vector<int>& k_hi, int ti) {
  return g.boundary_idle_allowed() && k_hi[ti + 1] >= g.segments();
}

// Calls visit(ti, te, m, dk, cost, lo, hi) for every train edge out of layer ti: its
// starting segments k in [lo, hi] (already within the progress limits of the layers it
// spans and ends in) go to segment k + dk at layer te.
template <typename Visit>
void ForEachTrainEdge(const CheckpointGraph& g, const EdgeCosts& costs,
                      const std::vector<int>& k_lo, const std::vector<int>& k_hi, int ti,
                      Visit&& visit) {
  const int release = g.release(), deadline = g.deadline(), segments = g.segments();
  const int tau = release + ti;
  for (int m = 0; m < g.num_modes(); ++m) {
    for (int dk = 1; dk <= std::min(g.max_dk(), segments); ++dk) {
      const int end = tau + g.duration(m, dk);
      // Durations grow with dk and a blocked slot stays blocked for longer edges.
      if (end > deadline || !costs.Allowed(m, tau, end)) break;
      const int te = end - release;
      int lo = std::max(k_lo[ti], k_lo[te] - dk);
      int hi = std::min({k_hi[ti], segments - dk, k_hi[te] - dk});
      NarrowBySpan(k_lo, k_hi, ti, te, lo, hi);
      if (lo <= hi) visit(te, m, dk, costs.Cost(m, tau, end), lo, hi);
    }
  }
}

// As ForEachTrainEdge, but once per group of edges of one dk that end in the same slot
// (CheckpointGraph::end_groups), at its cheapest allowed mode's cost: such edges reach the
// same states, and c + x is monotone in c, so a min over the group's edges equals one
// relaxation at its least cost. Calls visit(te, dk, cost, lo, hi).
template <typename Visit>
void ForEachTrainGroup(const CheckpointGraph& g, const EdgeCosts& costs,
                       const std::vector<int>& k_lo, const std::vector<int>& k_hi, int ti,
                       Visit&& visit) {
  const int release = g.release(), deadline = g.deadline(), segments = g.segments();
  const int tau = release + ti;
  const CheckpointGraph::EndGroup* groups = g.end_groups().data();
  for (int dk = 1; dk <= std::min(g.max_dk(), segments); ++dk) {
    const int last = g.end_group_begin(dk + 1);
    for (int gi = g.end_group_begin(dk); gi < last; ++gi) {
      const int end = tau + groups[gi].duration;
      if (end > deadline) break;  // a dk's groups come by duration
      const double c = CheapestGroupCost(g, costs, gi, tau, end);
      if (c == kInf) continue;  // every mode of the group is blocked
      const int te = end - release;
      int lo = std::max(k_lo[ti], k_lo[te] - dk);
      int hi = std::min({k_hi[ti], segments - dk, k_hi[te] - dk});
      NarrowBySpan(k_lo, k_hi, ti, te, lo, hi);
      if (lo <= hi) visit(te, dk, c, lo, hi);
    }
  }
}

}  // namespace

void BackwardValues(const CheckpointGraph& g, const EdgeCosts& costs,
                    std::vector<double>& backward) {
  const int layers = g.deadline() - g.release() + 1, width = g.segments() + 1;
  backward.assign(static_cast<size_t>(layers) * width, kInf);
  std::vector<int> k_lo, k_hi;
  LayerProgressRange(g, costs, k_lo, k_hi);
  if (k_hi[layers - 1] < g.segments()) return;  // the limits exclude the sink
  backward[static_cast<size_t>(layers - 1) * width + g.segments()] = 0.0;
  for (int ti = layers - 2; ti >= 0; --ti) {
    double* here = backward.data() + static_cast<size_t>(ti) * width;
    const double* next = here + width;
    int lo = 0, hi = -1;
    if (WaitRange(g, costs, k_lo, k_hi, ti, lo, hi)) {
      lo = std::max(lo, k_lo[ti]);
      hi = std::min(hi, k_hi[ti]);
      for (int k = lo; k <= hi; ++k) here[k] = std::min(here[k], next[k]);
      if (BoundaryIdleAllowed(g, k_hi, ti) && k_hi[ti] >= g.segments()) {
        here[g.segments()] = std::min(here[g.segments()], next[g.segments()]);
      }
    }
    ForEachTrainGroup(g, costs, k_lo, k_hi, ti, [&](int te, int dk, double c, int a, int b) {
      const double* to = backward.data() + static_cast<size_t>(te) * width + dk;
      for (int k = a; k <= b; ++k) here[k] = std::min(here[k], c + to[k]);
    });
  }
}

void CheapestPathThroughChoices(const CheckpointGraph& g, const EdgeCosts& costs,
                                const std::vector<double>& forward,
                                const std::vector<double>& backward, std::vector<double>& through) {
  const int layers = g.deadline() - g.release() + 1, width = g.segments() + 1;
  const int stride = g.num_modes() + 1;
  through.assign(static_cast<size_t>(layers - 1) * stride, kInf);
  std::vector<int> k_lo, k_hi;
  LayerProgressRange(g, costs, k_lo, k_hi);
  for (int ti = 0; ti + 1 < layers; ++ti) {
    const double* from = forward.data() + static_cast<size_t>(ti) * width;
    const double* next = backward.data() + static_cast<size_t>(ti + 1) * width;
    double& idle = through[static_cast<size_t>(ti) * stride];
    int lo = 0, hi = -1;
    if (WaitRange(g, costs, k_lo, k_hi, ti, lo, hi)) {
      for (int k = lo; k <= hi; ++k) idle = std::min(idle, from[k] + next[k]);
      if (BoundaryIdleAllowed(g, k_hi, ti)) {
        idle = std::min(idle, from[g.segments()] + next[g.segments()]);
      }
    }
    ForEachTrainEdge(g, costs, k_lo, k_hi, ti, [&](int te, int m, int dk, double c, int a, int b) {
      const double* to = backward.data() + static_cast<size_t>(te) * width + dk;
      double best = kInf;
      for (int k = a; k <= b; ++k) best = std::min(best, from[k] + c + to[k]);
      if (best == kInf) return;
      for (int s = ti; s < te; ++s) {
        double& v = through[static_cast<size_t>(s) * stride + m + 1];
        v = std::min(v, best);
      }
    });
  }
}

}  // namespace ckptdp::internal
