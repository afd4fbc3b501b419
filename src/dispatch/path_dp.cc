#include <algorithm>
#include <limits>

#include "dispatch/internal/path_dp.h"
#include "dispatch/internal/progress_branching.h"

namespace ckptdp::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

PathSolution PathSolver::Solve(const CheckpointGraph& graph, const EdgeCosts& costs) {
  if (graph.has_restarts()) return SolveRestarts(graph, costs);
  return HasSideResources(graph) ? SolveWithResources(graph, costs) : SolvePlain(graph, costs);
}

PathSolution PathSolver::SolvePlain(const CheckpointGraph& g, const EdgeCosts& costs) {
  const int release = g.release(), deadline = g.deadline(), segments = g.segments();
  const int layers = deadline - release + 1, width = segments + 1, max_dk = g.max_dk();
  const size_t states = static_cast<size_t>(layers) * width;
  value_.assign(states, kInf);
  value_[0] = 0.0;
  // k_min_[ti]: the least segment from which the deadline is still within reach at slot
  // release + ti (segments + 1: none). States below it are dead: no optimal path uses them,
  // and on tight windows they are most of the graph. k_max_[ti]: the most segments that
  // even the fastest edges can have covered by then (segments have equal work, so
  // MinimumSlotsFor(k) is also the least time for the first k). States above it are
  // unreachable: their value stays infinite, so skipping them changes no minimum.
  k_min_.resize(layers);
  k_max_.resize(layers);
  for (int ti = 0; ti < layers; ++ti) {
    int k = 0;
    while (k <= segments && g.MinimumSlotsFor(segments - k) > deadline - release - ti) ++k;
    k_min_[ti] = k;
    k = 0;
    while (k < segments && g.MinimumSlotsFor(k + 1) <= ti) ++k;
    k_max_[ti] = k;
  }
  // Branch and bound's progress limits (progress_branching.h): allowed segments per layer.
  LayerProgressRange(g, costs, k_lo_, k_hi_);
  if (k_lo_[0] > 0) value_[0] = kInf;

  // Forward pass. A train edge's cost depends on (mode, start, end) but not on the segment
  // it starts from, so the loop over segments is innermost: one cost, one blocked test and
  // then a branch-free, vectorisable min over contiguous states. Edges of one dk that end in
  // the same slot reach the same states, whatever their mode, so each group relaxes the
  // states once with its cheapest allowed mode's cost: min(src + a, src + b) equals
  // src + min(a, b) exactly, since rounding is monotone, so the values are those of one
  // relaxation per edge. Predecessors are not stored; the backward pass below finds them.
  for (int ti = 0; ti + 1 < layers; ++ti) {
    const int tau = release + ti;
    const int k0 = k_min_[ti], k1 = k_max_[ti];
    if (k0 > k1) continue;
    const double* src = value_.data() + static_cast<size_t>(ti) * width;
    if (costs.WaitAllowed(tau)) {
      double* dst = value_.data() + static_cast<size_t>(ti + 1) * width;
      const int lo = std::max({k0, k_min_[ti + 1], k_lo_[ti + 1]});
      const int hi = std::min({g.allow_wait() ? segments - 1 : -1, k_hi_[ti + 1], k1});  // k < K
      for (int k = lo; k <= hi; ++k) dst[k] = std::min(dst[k], src[k]);
      if (g.boundary_idle_allowed() && lo <= segments && k1 == segments &&
          k_hi_[ti + 1] >= segments) {
        dst[segments] = std::min(dst[segments], src[segments]);
      }
    }
    const CheckpointGraph::EndGroup* groups = g.end_groups().data();
    const int* group_modes = g.end_group_modes().data();
    for (int dk = 1; dk <= std::min(max_dk, segments - k0); ++dk) {
      const int first = g.end_group_begin(dk), last = g.end_group_begin(dk + 1);
      // A dk's groups come by duration, and its shortest edge is no shorter than the
      // previous dk's: the first group past the deadline ends this dk, or the whole scan.
      if (first == last || tau + groups[first].duration > deadline) break;
      for (int gi = first; gi < last; ++gi) {
        const int end = tau + groups[gi].duration;
        if (end > deadline) break;
        double c = kInf;
        for (int i = groups[gi].first; i < groups[gi].first + groups[gi].count; ++i) {
          const int m = group_modes[i];
          if (!costs.Allowed(m, tau, end)) continue;
          const double* row = costs.prefix.data() + static_cast<size_t>(m) * (costs.slots + 1);
          c = std::min(c, row[end] - row[tau]);
        }
        if (c == kInf) continue;  // every mode of the group is blocked
        const int te = end - release;
        double* dst = value_.data() + static_cast<size_t>(te) * width + dk;
        int lo = std::max({k0, k_min_[te] - dk, k_lo_[te] - dk});
        int hi = std::min({segments - dk, k_hi_[te] - dk, k1});
        if (costs.HasProgressLimits()) NarrowBySpan(k_lo_, k_hi_, ti, te, lo, hi);
        for (int k = lo; k <= hi; ++k) dst[k] = std::min(dst[k], src[k] + c);
      }
    }
  }

  PathSolution out;
  const int target = (layers - 1) * width + segments;
  if (value_[target] == kInf) return out;
  out.feasible = true;
  out.cost = value_[target];
  // Backward pass: from the sink, step to a predecessor whose value plus the edge's cost
  // equals the state's value. The sums are the forward pass's own (same operands, same
  // order), so the test is exact; waits are preferred, then modes and dk in order.
  int ti = layers - 1, k = segments;
  while (ti > 0) {
    const int tau = release + ti;
    const double v = value_[static_cast<size_t>(ti) * width + k];
    const bool wait_ok = costs.WaitAllowed(tau - 1) && WaitAllowedAt(g, k) && k >= k_lo_[ti - 1] &&
                         k <= k_hi_[ti - 1];
    if (wait_ok && value_[static_cast<size_t>(ti - 1) * width + k] == v) {
      --ti;
      continue;
    }
    bool stepped = false;
    for (int m = 0; m < g.num_modes() && !stepped; ++m) {
      const double* row = costs.prefix.data() + static_cast<size_t>(m) * (costs.slots + 1);
      for (int dk = 1; dk <= std::min(max_dk, k) && !stepped; ++dk) {
        const int l = g.duration(m, dk);
        if (l > ti) break;
        const int start = tau - l;
        if (!costs.Allowed(m, start, tau)) continue;
        int span_lo = k - dk, span_hi = k - dk;  // its start and inside within the limits
        if (costs.HasProgressLimits()) NarrowBySpan(k_lo_, k_hi_, ti - l - 1, ti, span_lo, span_hi);
        if (span_lo > span_hi) continue;
        const double from = value_[static_cast<size_t>(ti - l) * width + k - dk];
        if (from + (row[tau] - row[start]) != v) continue;
        Run run;
        run.start_slot = start;
        run.end_slot = tau;
        run.from_segment = k - dk;
        run.to_segment = k;
        run.mode = g.feasible_index(m);
        out.runs.push_back(run);
        ti -= l;
        k -= dk;
        stepped = true;
      }
    }
    if (!stepped) {  // cannot happen: every finite value was set by one of these edges
      return PathSolution{};
    }
  }
  std::reverse(out.runs.begin(), out.runs.end());
  return out;
}

}  // namespace ckptdp::internal
