// Shortest paths on a job's checkpoint-state graph: the per-job subproblem of the engine.
//
// The graph is a DAG in time, so a forward dynamic program over slots is exact. Operators'
// side limits (minimum run length, maximum pauses) make it a resource-constrained shortest
// path; the DP then runs on states expanded by those resources, which stays exact.
// tests/dispatch/path_dp_test.cc checks both against Boost.Graph's r_c_shortest_paths.
#ifndef CKPTDP_DISPATCH_INTERNAL_PATH_DP_H_
#define CKPTDP_DISPATCH_INTERNAL_PATH_DP_H_

#include <algorithm>
#include <limits>
#include <vector>

#include "ckptdp/graph.h"
#include "ckptdp/schedule.h"
#include "dispatch/internal/edge_costs.h"

namespace ckptdp::internal {

struct PathSolution {
  bool feasible = false;
  double cost = 0;
  std::vector<Run> runs;  // Run::mode is the index into JobModes::feasible
};

// Reusable workspace, so repeated solves do not allocate. A solve reads nothing that an
// earlier solve left (of this job or another): every read is of a value this solve wrote.
class PathSolver {
 public:
  // Cheapest path from (release, 0) to (deadline, K) under `costs` (graph-mode indices).
  PathSolution Solve(const CheckpointGraph& graph, const EdgeCosts& costs);
  // After Solve on a graph without side resources or restarts: the cheapest cost from the
  // source to each state, [(t - release) * (segments + 1) + k] (infinity: unreachable, or
  // the deadline is out of reach from it). path_dp_backward.h adds the costs to the sink.
  const std::vector<double>& forward_values() const { return value_; }

 private:
  PathSolution SolvePlain(const CheckpointGraph& graph, const EdgeCosts& costs);
  // Operators' limits (path_dp_resources.cc): states carry the block length and pauses.
  PathSolution SolveWithResources(const CheckpointGraph& graph, const EdgeCosts& costs);
  // Restart overheads and initial runs (path_dp_restarts.cc): states carry the run state.
  PathSolution SolveRestarts(const CheckpointGraph& graph, const EdgeCosts& costs);

  // SolveWithResources (path_dp_resources.cc): the segments k of layer ti from which the
  // train edges of dk ending at layer te leave.
  void TrainRange(const CheckpointGraph& graph, const EdgeCosts& costs, int ti, int te, int dk,
                  int& lo, int& hi) const;

  std::vector<double> value_;
  std::vector<int> k_min_;        // per layer: the least segment from which the sink is reachable
  std::vector<int> k_lo_, k_hi_;  // per layer: branch and bound's progress limits
  std::vector<int> k_max_;        // per layer: the greatest segment reachable
  std::vector<int> row_lo_, row_hi_;    // SolveWithResources: per row, the entered segments
  std::vector<double> least_;           // SolveWithResources: scratch of the dominance test
  std::vector<int> live_rows_;          // SolveWithResources: a layer's rows that hold a state
  std::vector<double> rows_;            // SolveRestarts: per-layer source rows
  std::vector<size_t> layer_offset_;    // SolveRestarts, per layer: where its rows start in value_
  std::vector<int> layer_span_;         // SolveRestarts, per layer: the segments a row stores
  std::vector<unsigned char> live_;     // SolveRestarts: per (layer, row), entered
  std::vector<unsigned char> none_ok_;  // SolveRestarts: per layer, "not started" exists
  struct Group {                        // SolveRestarts: edges of one dk and duration
    int dk = 0;
    int duration = 0;
    int mask = 0;  // overhead classes
  };
  std::vector<Group> groups_;     // SolveRestarts: per mode, by dk, up to 3 groups each
  std::vector<int> group_begin_;  // SolveRestarts: per mode, its first group (then the end)
};

// Whether a job's limits need the resource-expanded DP (validation keeps them apart from
// restart overheads, which have their own DP).
inline bool HasSideResources(const CheckpointGraph& graph) {
  return graph.min_run_slots() > 1 || graph.max_pauses() >= 0;
}

// The cheapest allowed mode's cost of the train edges of end group `group` (an index into
// graph.end_groups()) from slot tau to slot end; infinity when every mode is blocked.
inline double CheapestGroupCost(const CheckpointGraph& graph, const EdgeCosts& costs, int group,
                                int tau, int end) {
  const CheckpointGraph::EndGroup& g = graph.end_groups()[group];
  const int* modes = graph.end_group_modes().data();
  double cost = std::numeric_limits<double>::infinity();
  for (int i = g.first; i < g.first + g.count; ++i) {
    if (costs.Allowed(modes[i], tau, end)) cost = std::min(cost, costs.Cost(modes[i], tau, end));
  }
  return cost;
}

// Whether a path may stay at segment k for a slot: waiting after the last segment is boundary
// idle, before it a checkpoint wait.
inline bool WaitAllowedAt(const CheckpointGraph& graph, int k) {
  return k == graph.segments() ? graph.boundary_idle_allowed() : graph.allow_wait();
}

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_PATH_DP_H_
