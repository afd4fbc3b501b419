// Branch and bound on top of the Lagrangian relaxation: closes the integrality gap that the
// Lagrangian bound (equal to the LP relaxation for S4) leaves, so that small instances are
// solved to proven optimality without a MILP library.
//
// A node restricts some (job, slot) pairs to a range of "levels" (idle, then the job's
// modes ordered by GPUs and power; dual.h). Its bound is the Lagrangian dual with those
// restrictions, warm-started from its parent's multipliers: the job subproblems honour the
// restrictions exactly (blocked modes, forbidden waits), so the bound is valid for every
// schedule in the node. Nodes are taken best-bound first; a node is pruned when its bound
// reaches the incumbent within the gap. Branching splits the level range of the (job,
// slot) whose averaged relaxed plans are the most divided, so that both children cut off a
// part of the relaxed solution; when the averages are integral it splits a pair that takes
// part in a capacity violation, or any pair with more than one level left. Every split
// shrinks a finite range, so the search is complete: with no node or time limit it ends
// with a proof of optimality (or of infeasibility).
//
// Distributed (options.comm with several ranks), every rank runs the same search in
// synchronous rounds (distributed_branch_and_bound.h): the node step below is the same.
#ifndef CKPTDP_DISPATCH_INTERNAL_BRANCH_AND_BOUND_H_
#define CKPTDP_DISPATCH_INTERNAL_BRANCH_AND_BOUND_H_

#include <limits>
#include <vector>

#include "ckptdp/engine.h"
#include "dispatch/internal/decomposition.h"
#include "dispatch/internal/dual.h"
#include "dispatch/internal/lagrangian.h"
#include "dispatch/internal/progress_branching.h"

namespace ckptdp::internal {

// An open node: its bound, its restrictions and its parent's best prices (warm start).
struct BranchNode {
  long id = 0;
  double bound = -std::numeric_limits<double>::infinity();  // valid for every schedule in it
  std::vector<SlotRestriction> restrictions;                // at most one per (job, slot)
  Multipliers multipliers;     // warm start: the parent's best multipliers
  DecompositionPrices prices;  // the same for the decomposition bound (when used)
  // Decomposition nodes only: progress restrictions (progress_branching.h) and the choices
  // that reduced-cost fixing removed here or in an ancestor (DecompositionBound::Restrict).
  std::vector<ProgressRestriction> progress;
  std::vector<std::vector<char>> excluded;
};

// What processing one node gave; the search's one step, which the serial loop and the
// distributed one (distributed_branch_and_bound.h) both apply.
struct NodeExpansion {
  enum class Kind { kOutOfTime, kInfeasible, kClosed, kBranched };
  Kind kind = Kind::kInfeasible;
  // kClosed and kBranched: the least cost of the schedules the node no longer holds (its
  // bound if pruned, the part node fixing removed, children pruned by strong branching).
  double closed = std::numeric_limits<double>::infinity();
  std::vector<BranchNode> children;  // kBranched: the open children (ids not yet given)
};

// The children of a kBranched `expansion`, numbered from next_id on.
std::vector<BranchNode> ChildrenOf(const NodeExpansion& expansion, long& next_id);

// Continues from the root outcome of RunLagrangian (its incumbent, bound and multipliers)
// and updates it in place: a better incumbent, a higher bound, `nodes` and the status:
// kOptimal once the gap is proven, kTimeLimit (kInterrupted) if the deadline (the stop
// token) ended the search, kNodeLimit after options.max_nodes nodes.
//
// With `decomposition` (TightenByDecomposition's), the root node takes its reduced-cost
// fixings as restrictions (the schedules they remove cost at least fixings.removed_bound,
// which the final bound takes into account). If it also holds the decomposition bound,
// every node's bound is that bound restricted to the node (DecompositionBound::Restrict),
// raised by options.decomposition_node_iterations volume iterations from the parent's
// prices, and x-bar chooses the branch. Otherwise nodes run the Lagrangian dual as above.
absl::Status BranchAndBound(const ScenarioContext& context, Workspaces& work,
                            const SolveOptions& options, const Deadline& deadline, SolverLog& log,
                            EngineOutcome& root, DecompositionRoot* decomposition = nullptr);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_BRANCH_AND_BOUND_H_
