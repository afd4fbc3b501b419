#include <algorithm>
#include <limits>

#include "dispatch/internal/path_dp.h"

namespace ckptdp::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr int kWaitEdge = -1;

bool WaitAllowed(const CheckpointGraph& g, int k) {
  // Waiting after the last segment is boundary idle; before it, checkpoint waiting.
  return k == g.segments() ? g.boundary_idle_allowed() : g.allow_wait();
}

}  // namespace

PathSolution PathSolver::Solve(const CheckpointGraph& graph, const EdgeCosts& costs) {
  return HasSideResources(graph) ? SolveWithResources(graph, costs) : SolvePlain(graph, costs);
}

PathSolution PathSolver::SolvePlain(const CheckpointGraph& g, const EdgeCosts& costs) {
  const int release = g.release(), deadline = g.deadline(), segments = g.segments();
  const int layers = deadline - release + 1, width = segments + 1, max_dk = g.max_dk();
  const size_t states = static_cast<size_t>(layers) * width;
  value_.assign(states, kInf);
  pred_state_.assign(states, -1);
  pred_edge_.assign(states, kWaitEdge);
  value_[0] = 0.0;

  for (int ti = 0; ti < layers; ++ti) {
    const int tau = release + ti;
    for (int k = 0; k <= segments; ++k) {
      // States from which the deadline is out of reach are skipped, and so are edges into
      // them: on tight windows that is most of the graph, and no optimal path uses them.
      if (g.MinimumSlotsFor(segments - k) > deadline - tau) continue;
      const int state = ti * width + k;
      const double v = value_[state];
      if (v == kInf) continue;
      if (tau < deadline && WaitAllowed(g, k) && costs.WaitAllowed(tau)) {
        const int next = state + width;
        if (v < value_[next]) {
          value_[next] = v;
          pred_state_[next] = state;
          pred_edge_[next] = kWaitEdge;
        }
      }
      const int dk_limit = std::min(max_dk, segments - k);
      for (int m = 0; m < g.num_modes(); ++m) {
        for (int dk = 1; dk <= dk_limit; ++dk) {
          const int end = tau + g.duration(m, dk);
          // Durations grow with dk and a blocked slot stays blocked for longer edges.
          if (end > deadline || !costs.Allowed(m, tau, end)) break;
          if (g.MinimumSlotsFor(segments - k - dk) > deadline - end) continue;
          const double c = v + costs.Cost(m, tau, end);
          const int next = (end - release) * width + k + dk;
          if (c < value_[next]) {
            value_[next] = c;
            pred_state_[next] = state;
            pred_edge_[next] = m * max_dk + dk - 1;
          }
        }
      }
    }
  }

  PathSolution out;
  const int target = (layers - 1) * width + segments;
  if (value_[target] == kInf) return out;
  out.feasible = true;
  out.cost = value_[target];
  for (int s = target; s != 0; s = pred_state_[s]) {
    const int edge = pred_edge_[s];
    if (edge == kWaitEdge) continue;
    const int from = pred_state_[s];
    Run run;
    run.start_slot = release + from / width;
    run.end_slot = release + s / width;
    run.from_segment = from % width;
    run.to_segment = s % width;
    run.mode = g.feasible_index(edge / max_dk);
    out.runs.push_back(run);
  }
  std::reverse(out.runs.begin(), out.runs.end());
  return out;
}

PathSolution PathSolver::SolveWithResources(const CheckpointGraph& g, const EdgeCosts& costs) {
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
  value_.assign(states, kInf);
  pred_state_.assign(states, -1);
  pred_edge_.assign(states, kWaitEdge);
  value_[index(0, 0, 0, 0)] = 0.0;

  auto relax = [&](int from, int to, double c, int edge) {
    if (c < value_[to]) {
      value_[to] = c;
      pred_state_[to] = from;
      pred_edge_[to] = edge;
    }
  };

  for (int ti = 0; ti < layers; ++ti) {
    const int tau = release + ti;
    for (int k = 0; k <= segments; ++k) {
      if (g.MinimumSlotsFor(segments - k) > deadline - tau) continue;  // as in SolvePlain
      for (int c = 0; c <= run_cap; ++c) {
        for (int p = 0; p <= pause_cap; ++p) {
          const int state = index(ti, k, c, p);
          const double v = value_[state];
          if (v == kInf) continue;
          if (tau < deadline && costs.WaitAllowed(tau)) {
            if (c == 0) {
              if (WaitAllowed(g, k)) relax(state, index(ti + 1, k, 0, p), v, kWaitEdge);
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
      if (value_[s] < kInf && (best < 0 || value_[s] < value_[best])) best = s;
    }
  }
  if (best < 0) return out;
  out.feasible = true;
  out.cost = value_[best];
  const int per_layer = width * c_width * p_width;
  auto segment_of = [&](int s) { return (s % per_layer) / (c_width * p_width); };
  for (int s = best; s != index(0, 0, 0, 0); s = pred_state_[s]) {
    const int edge = pred_edge_[s];
    if (edge == kWaitEdge) continue;
    const int from = pred_state_[s];
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
