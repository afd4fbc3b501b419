// Reference solver for the per-job shortest path: a test oracle, not for production use.
//
// It materialises the checkpoint-state graph as an explicit boost::adjacency_list and solves
// the resource-constrained shortest path with Boost.Graph's r_c_shortest_paths (labels with
// cost, current block length, pauses used). It shares no code with PathSolver beyond the
// graph and the cost arrays, so agreement between the two is evidence that the fast DP is
// right. It is slow (explicit edges, shared_ptr labels) and only meant for small graphs.
#ifndef CKPTDP_TESTS_SUPPORT_REFERENCE_PATH_H_
#define CKPTDP_TESTS_SUPPORT_REFERENCE_PATH_H_

#include "ckptdp/graph.h"
#include "dispatch/internal/edge_costs.h"
#include "dispatch/internal/path_dp.h"

namespace ckptdp::internal {

// Cheapest path from (release, 0) to (deadline, K) under `costs`, honouring allow_wait,
// boundary idle, min_run_slots and max_pauses, in the same PathSolution form as
// PathSolver::Solve. Among equally cheap paths the choice may differ from the DP's.
PathSolution ReferenceShortestPath(const CheckpointGraph& graph, const EdgeCosts& costs);

}  // namespace ckptdp::internal

#endif  // CKPTDP_TESTS_SUPPORT_REFERENCE_PATH_H_
