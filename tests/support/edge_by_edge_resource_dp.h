// The DP with operators' limits as it was written before its row form (path_dp_resources.cc):
// every state relaxes every edge out of it, states in the order (layer, k, c, p), edges by
// mode in graph order and then by dk, and a state keeps the first strict improvement as its
// predecessor. A test oracle for the row form's tie-breaking: the two must return the same
// runs, not only the same cost. Slow (no bands, no groups); for small graphs.
#ifndef CKPTDP_TESTS_SUPPORT_EDGE_BY_EDGE_RESOURCE_DP_H_
#define CKPTDP_TESTS_SUPPORT_EDGE_BY_EDGE_RESOURCE_DP_H_

#include "ckptdp/graph.h"
#include "dispatch/internal/edge_costs.h"
#include "dispatch/internal/path_dp.h"

namespace ckptdp::internal {

// Cheapest path from (release, 0) to (deadline, K) under `costs` for a graph with
// min_run_slots > 1 or max_pauses >= 0 (progress limits honoured).
PathSolution EdgeByEdgeResourcePath(const CheckpointGraph& graph, const EdgeCosts& costs);

}  // namespace ckptdp::internal

#endif  // CKPTDP_TESTS_SUPPORT_EDGE_BY_EDGE_RESOURCE_DP_H_
