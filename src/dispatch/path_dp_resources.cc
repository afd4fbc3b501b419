// Path DP with operators' limits (minimum run length, maximum pauses): SolvePlain's states
// (slot, segment) expanded by two resources, c = length of the current training block capped
// at min_run (0 = idle) and p = pauses used so far (tracked only when limited). The DP stays
// exact; tests/dispatch/path_dp_test.cc checks it against Boost.Graph's r_c_shortest_paths.
//
// Layout: a layer stores its states by (c, p), each a row over the segments k, so that an
// edge's sources and targets are contiguous and the forward pass is SolvePlain's branch-free
// min over a row. Per row it keeps the band of segments that an edge has entered: most rows
// are never entered (more pauses than made so far, say) and are skipped. Before a layer's
// edges are relaxed, its strictly dominated states are dropped and the bands narrowed to the
// states kept (DropDominatedStates).
//
// Like SolvePlain, the forward pass stores no predecessors: train edges of one dk that end in
// the same slot reach the same state from a given one, whatever their mode, so a layer relaxes
// each such group (CheckpointGraph::end_groups) once at its cheapest allowed mode's cost
// (min(v + a, v + b) equals v + min(a, b) exactly, rounding being monotone). The backward pass
// then finds each state's predecessor as the first candidate, in a fixed order, whose value
// plus the edge's cost equals the state's value. That order is the one in which relaxing
// edge by edge, states in the order (layer, k, c, p) and each state's modes in graph order,
// would keep its first strict improvement, so the paths are those of that earlier DP: into a
// state, source layers in time order; within a layer, waits from c = 0 before c = run_cap,
// train edges by dk from the largest (sources by k), then by c, then by mode.
#include <algorithm>
#include <limits>

#include "dispatch/internal/path_dp.h"
#include "dispatch/internal/progress_branching.h"

namespace ckptdp::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The state space of one solve: sizes and the index of (layer, k, c, p).
struct ResourceStates {
  int width = 0;    // segments + 1
  int run_cap = 0;  // >= 1 so that pauses are seen
  bool count_pauses = false;
  int pause_cap = 0;
  int c_width = 0, p_width = 0;

  explicit ResourceStates(const CheckpointGraph& g)
      : width(g.segments() + 1),
        run_cap(std::max(1, g.min_run_slots())),
        count_pauses(g.max_pauses() >= 0),
        pause_cap(count_pauses ? g.max_pauses() : 0),
        c_width(run_cap + 1),
        p_width(pause_cap + 1) {}
  int Row(int ti, int c, int p) const { return (ti * c_width + c) * p_width + p; }
  int Index(int ti, int k, int c, int p) const { return Row(ti, c, p) * width + k; }
};

// Drops (sets to infinity) the states of layer ti that another state of the same (slot,
// segment) dominates strictly, and narrows each row's band to the states kept. State
// (c', p') dominates (c, p) when every way on from (c, p) is open from (c', p') at the same
// edge costs (they do not depend on c or p) and its value is lower:
//   - while training (c >= 1): a block at least as long (c <= c' <= run_cap) and no more
//     pauses (p' <= p): a train edge takes both on, the longer block never shorter;
//   - idle (c = 0): an idle state with fewer pauses, or a block long enough to stop
//     (c' = run_cap) with at least one pause fewer (p' <= p - 1; p' <= p if pauses are not
//     counted): its pause leads to (0, p' + 1) where the idle state's wait leads to (0, p).
// A strictly dominated state lies on no cheapest path (the dominating state's way on costs
// no more and ends in an accepted state), so the path found, costs and runs, is unchanged
// (the edge-by-edge DP's test in tests/dispatch/path_dp_test.cc checks it). On the shipped
// 128-job week with min_run_slots = 4 and max_pauses = 4 on every job, 78 % of the finite
// states were dominated, and the rows' bands shrank to 24 % of their cells.
// `least` is scratch of c_width * p_width values: per k, least[c * p_width + p] is the least
// value over c <= c' <= run_cap, p' <= p (c >= 1).
void DropDominatedStates(const ResourceStates& s, int ti, std::vector<double>& value,
                         std::vector<int>& row_lo, std::vector<int>& row_hi,
                         std::vector<double>& least) {
  const int pw = s.p_width, cap = s.run_cap, rows = s.c_width * s.p_width;
  const int first_row = s.Row(ti, 0, 0);
  int lo = s.width, hi = -1;
  for (int r = first_row; r < first_row + rows; ++r) {
    lo = std::min(lo, row_lo[r]);
    hi = std::max(hi, row_hi[r]);
  }
  if (lo > hi) return;
  least.resize(rows);
  // Outside its band a row's values are infinite (they were never written), so the union
  // of the bands can be read row by row.
  double* layer = value.data() + static_cast<size_t>(first_row) * s.width;
  auto at = [&](int c, int p, int k) -> double& {
    return layer[static_cast<size_t>(c * pw + p) * s.width + k];
  };
  for (int k = lo; k <= hi; ++k) {
    for (int c = cap; c >= 1; --c) {
      for (int p = 0; p < pw; ++p) {
        double others = kInf;
        if (c < cap) others = least[(c + 1) * pw + p];
        if (p > 0) others = std::min(others, least[c * pw + p - 1]);
        double& own = at(c, p, k);
        least[c * pw + p] = std::min(own, others);
        if (others < own) own = kInf;
      }
    }
    double idle_least = kInf;  // over (0, p' < p)
    for (int p = 0; p < pw; ++p) {
      double others = idle_least;
      const int q = s.count_pauses ? p - 1 : p;
      if (q >= 0) others = std::min(others, least[cap * pw + q]);
      double& own = at(0, p, k);
      idle_least = std::min(idle_least, own);
      if (others < own) own = kInf;
    }
  }
  for (int r = first_row; r < first_row + rows; ++r) {
    const double* row = value.data() + static_cast<size_t>(r) * s.width;
    while (row_lo[r] <= row_hi[r] && row[row_lo[r]] == kInf) ++row_lo[r];
    while (row_lo[r] <= row_hi[r] && row[row_hi[r]] == kInf) --row_hi[r];
  }
}

}  // namespace

// The segments k of layer ti from which the train edges of `dk` ending at layer te leave:
// the deadline is in reach from both ends, and the progress limits of the layers the edge
// spans and ends in hold. Shared by the forward and the backward pass.
void PathSolver::TrainRange(const CheckpointGraph& g, const EdgeCosts& costs, int ti, int te,
                            int dk, int& lo, int& hi) const {
  lo = std::max({k_min_[ti], k_min_[te] - dk, k_lo_[te] - dk});
  hi = std::min(g.segments() - dk, k_hi_[te] - dk);
  if (costs.HasProgressLimits()) NarrowBySpan(k_lo_, k_hi_, ti, te, lo, hi);
}

PathSolution PathSolver::SolveWithResources(const CheckpointGraph& g, const EdgeCosts& costs) {
  const int release = g.release(), deadline = g.deadline(), segments = g.segments();
  const int layers = deadline - release + 1, max_dk = g.max_dk();
  const ResourceStates s(g);
  const int width = s.width, run_cap = s.run_cap, pause_cap = s.pause_cap;
  value_.assign(static_cast<size_t>(layers) * width * s.c_width * s.p_width, kInf);
  // Per row (layer, c, p): the band of segments whose values may be finite (lo > hi: none).
  const int rows = layers * s.c_width * s.p_width;
  row_lo_.assign(rows, width);
  row_hi_.assign(rows, -1);
  auto enter = [&](int row, int lo, int hi) {
    row_lo_[row] = std::min(row_lo_[row], lo);
    row_hi_[row] = std::max(row_hi_[row], hi);
  };
  LayerProgressRange(g, costs, k_lo_, k_hi_);  // branch and bound's progress limits
  if (k_lo_[0] == 0) {
    value_[s.Index(0, 0, 0, 0)] = 0.0;
    enter(0, 0, 0);
  }
  // k_min_[ti]: as in SolvePlain, the least segment from which the deadline is in reach.
  k_min_.resize(layers);
  for (int ti = 0; ti < layers; ++ti) {
    int k = 0;
    while (k <= segments && g.MinimumSlotsFor(segments - k) > deadline - release - ti) ++k;
    k_min_[ti] = k;
  }
  // A wait (free) from row `from` into row `to` over segments [lo, hi].
  auto wait = [&](int from, int to, int lo, int hi) {
    lo = std::max(lo, row_lo_[from]);
    hi = std::min(hi, row_hi_[from]);
    if (lo > hi) return;
    enter(to, lo, hi);
    const double* src = value_.data() + static_cast<size_t>(from) * width;
    double* dst = value_.data() + static_cast<size_t>(to) * width;
    for (int k = lo; k <= hi; ++k) dst[k] = std::min(dst[k], src[k]);
  };

  const CheckpointGraph::EndGroup* groups = g.end_groups().data();
  const int* group_modes = g.end_group_modes().data();
  for (int ti = 0; ti < layers; ++ti) {
    const int tau = release + ti, k0 = k_min_[ti];
    if (k0 > segments) continue;
    // Every edge into layer ti has been relaxed: its values are final.
    DropDominatedStates(s, ti, value_, row_lo_, row_hi_, least_);
    // The rows (c, p) of this layer that kept a state: the train edges leave only from them
    // (the order does not matter, a min is a min).
    live_rows_.clear();
    for (int r = 0; r < s.c_width * s.p_width; ++r) {
      const int row = s.Row(ti, 0, 0) + r;
      if (row_lo_[row] <= row_hi_[row]) live_rows_.push_back(r);
    }
    if (ti + 1 < layers && costs.WaitAllowed(tau)) {
      const int lo = std::max(k0, k_lo_[ti + 1]), hi = std::min(segments, k_hi_[ti + 1]);
      // Checkpoint waits (k < K) and boundary idle (k = K) from idle states, and a pause or
      // the idle after the last segment once the block is long enough to stop.
      const int idle_hi = std::min(hi, g.allow_wait() ? segments - 1 : -1);
      const bool boundary = g.boundary_idle_allowed() && lo <= segments && hi == segments;
      for (int p = 0; p <= pause_cap; ++p) {
        wait(s.Row(ti, 0, p), s.Row(ti + 1, 0, p), lo, idle_hi);
        if (boundary) wait(s.Row(ti, 0, p), s.Row(ti + 1, 0, p), segments, segments);
        if (boundary) wait(s.Row(ti, run_cap, p), s.Row(ti + 1, 0, p), segments, segments);
        if (!s.count_pauses || p < pause_cap) {
          wait(s.Row(ti, run_cap, p), s.Row(ti + 1, 0, s.count_pauses ? p + 1 : p), lo, idle_hi);
        }
      }
    }
    for (int dk = 1; dk <= std::min(max_dk, segments - k0); ++dk) {
      const int last = g.end_group_begin(dk + 1);
      for (int gi = g.end_group_begin(dk); gi < last; ++gi) {
        const int end = tau + groups[gi].duration;
        if (end > deadline) break;  // a dk's groups come by duration
        const double cost = CheapestGroupCost(g, costs, gi, tau, end);
        if (cost == kInf) continue;  // every mode of the group is blocked
        const int te = end - release;
        int lo = 0, hi = -1;
        TrainRange(g, costs, ti, te, dk, lo, hi);
        if (lo > hi) continue;
        for (const int r : live_rows_) {
          const int c = r / s.p_width, p = r % s.p_width;
          const int c_next = std::min(run_cap, c + groups[gi].duration);
          const int from = s.Row(ti, c, p), to = s.Row(te, c_next, p);
          const int a = std::max(lo, row_lo_[from]), b = std::min(hi, row_hi_[from]);
          if (a > b) continue;
          enter(to, a + dk, b + dk);
          const double* src = value_.data() + static_cast<size_t>(from) * width;
          double* dst = value_.data() + static_cast<size_t>(to) * width + dk;
          for (int k = a; k <= b; ++k) dst[k] = std::min(dst[k], src[k] + cost);
        }
      }
    }
  }

  PathSolution out;
  int best = -1;
  for (int c : {0, run_cap}) {
    for (int p = 0; p <= pause_cap; ++p) {
      const int state = s.Index(layers - 1, segments, c, p);
      if (value_[state] < kInf && (best < 0 || value_[state] < value_[best])) best = state;
    }
  }
  if (best < 0) return out;
  out.feasible = true;
  out.cost = value_[best];

  // Backward pass: from the best end state, step to the first candidate predecessor (in the
  // order of the header comment) whose value plus the edge's cost equals the state's value.
  // No edge lasts longer than the longest group, so earlier layers are not searched.
  int longest = 0;
  for (const CheckpointGraph::EndGroup& group : g.end_groups()) {
    longest = std::max(longest, group.duration);
  }
  int ti = layers - 1, k = segments, c = best / width % (s.c_width * s.p_width) / s.p_width;
  int p = best / width % s.p_width;
  while (!(ti == 0 && k == 0 && c == 0 && p == 0)) {
    const double v = value_[s.Index(ti, k, c, p)];
    bool stepped = false;
    if (c == 0) {  // a wait from layer ti - 1
      const int from = ti - 1;
      const int tau = release + from;
      const bool ok = from >= 0 && costs.WaitAllowed(tau) && k >= k_min_[from] && k >= k_lo_[ti] &&
                      k <= k_hi_[ti];
      if (ok && WaitAllowedAt(g, k) && value_[s.Index(from, k, 0, p)] == v) {
        ti = from;
        stepped = true;
      } else if (ok && WaitAllowedAt(g, k)) {
        const int q = k < segments && s.count_pauses ? p - 1 : p;
        if (q >= 0 && value_[s.Index(from, k, run_cap, q)] == v) {
          ti = from;
          c = run_cap;
          p = q;
          stepped = true;
        }
      }
    } else {  // a train edge, from the earliest layer first
      for (int from = std::max(0, ti - longest); from < ti && !stepped; ++from) {
        const int tau = release + from, length = ti - from;
        if (k_min_[from] > segments) continue;
        for (int dk = std::min({max_dk, k, segments - k_min_[from]}); dk >= 1 && !stepped; --dk) {
          const int first = g.end_group_begin(dk), last = g.end_group_begin(dk + 1);
          int gi = first;
          while (gi < last && groups[gi].duration < length) ++gi;
          if (gi == last || groups[gi].duration != length) continue;
          int lo = 0, hi = -1;
          TrainRange(g, costs, from, ti, dk, lo, hi);
          if (k - dk < lo || k - dk > hi) continue;
          for (int cf = 0; cf <= run_cap && !stepped; ++cf) {
            if (std::min(run_cap, cf + length) != c) continue;
            const double u = value_[s.Index(from, k - dk, cf, p)];
            if (u == kInf) continue;
            for (int i = groups[gi].first; i < groups[gi].first + groups[gi].count; ++i) {
              const int m = group_modes[i];
              if (!costs.Allowed(m, tau, ti + release)) continue;
              if (u + costs.Cost(m, tau, ti + release) != v) continue;
              Run run;
              run.start_slot = tau;
              run.end_slot = ti + release;
              run.from_segment = k - dk;
              run.to_segment = k;
              run.mode = g.feasible_index(m);
              out.runs.push_back(run);
              ti = from;
              k -= dk;
              c = cf;
              stepped = true;
              break;
            }
          }
        }
      }
    }
    if (!stepped) return PathSolution{};  // cannot happen: each finite value came from an edge
  }
  std::reverse(out.runs.begin(), out.runs.end());
  return out;
}

}  // namespace ckptdp::internal
