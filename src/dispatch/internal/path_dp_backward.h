// The backward values of a job's checkpoint-state graph, for path-reduced-cost fixing
// (Irnich, Desaulniers, Desrosiers and Hadjar, INFORMS JOC 2010): with the forward values
// of PathSolver (the cheapest cost from the source to a state) they give, for every train
// edge, the cheapest path through it, F(from) + cost + B(to), and so for every (slot,
// choice) the cheapest path that makes that choice there, in one pass per job instead of
// one restricted DP per (slot, choice).
//
// Graphs without side resources or restarts only (PathValuesSupported): the others keep
// resource or run states that the values here do not carry.
#ifndef CKPTDP_DISPATCH_INTERNAL_PATH_DP_BACKWARD_H_
#define CKPTDP_DISPATCH_INTERNAL_PATH_DP_BACKWARD_H_

#include <vector>

#include "ckptdp/graph.h"
#include "dispatch/internal/edge_costs.h"
#include "dispatch/internal/path_dp.h"

namespace ckptdp::internal {

inline bool PathValuesSupported(const CheckpointGraph& graph) {
  return !graph.has_restarts() && !HasSideResources(graph);
}

// backward[(t - release) * (segments + 1) + k]: the cheapest cost from state (t, k) to the
// sink (deadline, segments) under `costs`, over the edges PathSolver's DP uses (waits,
// blocked modes, forbidden waits, progress limits); infinity where the sink is out of reach.
void BackwardValues(const CheckpointGraph& graph, const EdgeCosts& costs,
                    std::vector<double>& backward);

// through[(t - release) * (modes + 1) + choice] for the slots t of the window: the cheapest
// path that does not train in slot t (choice 0) or trains in graph mode choice - 1 through
// it; infinity where no path does. `forward` is PathSolver::forward_values() after Solve
// with the same costs. The minimum over the choices of any slot is the optimum.
void CheapestPathThroughChoices(const CheckpointGraph& graph, const EdgeCosts& costs,
                                const std::vector<double>& forward,
                                const std::vector<double>& backward, std::vector<double>& through);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_PATH_DP_BACKWARD_H_
