#include "support/edge_by_edge_resource_dp.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "dispatch/internal/progress_branching.h"

namespace ckptdp::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kWaitEdge = -1;

}  // namespace

PathSolution EdgeByEdgeResourcePath(const CheckpointGraph& g, const EdgeCosts& costs) {
  std::vector<double> value;
  std::vector<int> pred_state, pred_edge, k_lo, k_hi;
  const int release = g.release(), deadline = g.deadline(), segments = g.segments();
  const int layers = deadline - release + 1, width = segments + 1, max_dk = g.max_dk();
  // Resources: c = length of the current training block capped at min_run (0 = idle), and
  // p = pauses used so far (only tracked when limited).
  const int run_cap = std::max(1, g.min_run_slots());  // >= 1 so that pauses are seen
  const bool count_pauses = g.max_pauses() >= 0;
  const int pause_cap = count_pauses ? g.max_pauses() : 0;
  const int c_width = run_cap + 1, p_width = pause_cap + 1;
  auto index = [&](int ti, int k, int c, int p) {
    return ((ti * width + k) * c_width + c) * p_width + p;
  };
  const size_t states = static_cast<size_t>(layers) * width * c_width * p_width;
  value.assign(states, kInf);
  pred_state.assign(states, -1);
  pred_edge.assign(states, kWaitEdge);
  LayerProgressRange(g, costs, k_lo, k_hi);  // branch and bound's progress limits
  if (k_lo[0] == 0) value[index(0, 0, 0, 0)] = 0.0;

  auto relax = [&](int from, int to, double c, int edge) {
    if (c < value[to]) {
      value[to] = c;
      pred_state[to] = from;
      pred_edge[to] = edge;
    }
  };

  for (int ti = 0; ti < layers; ++ti) {
    const int tau = release + ti;
    for (int k = 0; k <= segments; ++k) {
      if (g.MinimumSlotsFor(segments - k) > deadline - tau) continue;  // as in SolvePlain
      for (int c = 0; c <= run_cap; ++c) {
        for (int p = 0; p <= pause_cap; ++p) {
          const int state = index(ti, k, c, p);
          const double v = value[state];
          if (v == kInf) continue;
          const bool wait_in_limits = ti + 1 < layers && k >= k_lo[ti + 1] && k <= k_hi[ti + 1];
          if (tau < deadline && costs.WaitAllowed(tau) && wait_in_limits) {
            if (c == 0) {
              if (WaitAllowedAt(g, k)) relax(state, index(ti + 1, k, 0, p), v, kWaitEdge);
            } else if (c == run_cap) {  // the block is long enough to stop
              if (k == segments) {
                if (g.boundary_idle_allowed()) relax(state, index(ti + 1, k, 0, p), v, kWaitEdge);
              } else if (g.allow_wait() && (!count_pauses || p < pause_cap)) {
                relax(state, index(ti + 1, k, 0, count_pauses ? p + 1 : p), v, kWaitEdge);
              }
            }
          }
          const int dk_limit = std::min(max_dk, segments - k);
          for (int m = 0; m < g.num_modes(); ++m) {
            for (int dk = 1; dk <= dk_limit; ++dk) {
              const int l = g.duration(m, dk);
              const int end = tau + l;
              if (end > deadline || !costs.Allowed(m, tau, end)) break;
              if (g.MinimumSlotsFor(segments - k - dk) > deadline - end) continue;
              int span_lo = k, span_hi = k;  // the edge's start within the limits
              if (costs.HasProgressLimits()) {
                NarrowBySpan(k_lo, k_hi, ti, end - release, span_lo, span_hi);
              }
              const int te = end - release;
              if (span_lo > span_hi || k + dk < k_lo[te] || k + dk > k_hi[te]) continue;
              const int c_next = std::min(run_cap, c + l);
              relax(state, index(end - release, k + dk, c_next, p), v + costs.Cost(m, tau, end),
                    m * max_dk + dk - 1);
            }
          }
        }
      }
    }
  }

  PathSolution out;
  int best = -1;
  for (int c : {0, run_cap}) {
    for (int p = 0; p <= pause_cap; ++p) {
      const int s = index(layers - 1, segments, c, p);
      if (value[s] < kInf && (best < 0 || value[s] < value[best])) best = s;
    }
  }
  if (best < 0) return out;
  out.feasible = true;
  out.cost = value[best];
  const int per_layer = width * c_width * p_width;
  auto segment_of = [&](int s) { return (s % per_layer) / (c_width * p_width); };
  for (int s = best; s != index(0, 0, 0, 0); s = pred_state[s]) {
    const int edge = pred_edge[s];
    if (edge == kWaitEdge) continue;
    const int from = pred_state[s];
    Run run;
    run.start_slot = release + from / per_layer;
    run.end_slot = release + s / per_layer;
    run.from_segment = segment_of(from);
    run.to_segment = segment_of(s);
    run.mode = g.feasible_index(edge / max_dk);
    out.runs.push_back(run);
  }
  std::reverse(out.runs.begin(), out.runs.end());
  return out;
}

}  // namespace ckptdp::internal
