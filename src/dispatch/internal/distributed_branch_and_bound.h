// Branch and bound over the ranks of a distributed solve (docs/distributed.md).
//
// Every rank holds the same best-first list of open nodes: there is no master. In each
// synchronous round the R best open nodes are dealt out, the i-th to rank i, and each rank
// processes its node with the serial search's node step (branch_and_bound.cc). One
// Allgather then brings every rank's expansion (closed with its bound, infeasible, or the
// branch with the children's warm start) to every rank, and each applies them in node
// order, so the lists stay identical. The same Allgather carries the cost of every rank's
// incumbent, and the cheapest is shared (AdoptCheapest: a rank accepts it only after its
// own exact evaluation). The gap, the node limit and the deadline are decided from
// gathered values only, so every rank makes the same collectives in the same order. Load balance
// comes from the dealing itself: every rank processes one node per round, taken from the best
// bounds of the global list. The result is deterministic for a given R and thread count (time
// limits aside).
#ifndef CKPTDP_DISPATCH_INTERNAL_DISTRIBUTED_BRANCH_AND_BOUND_H_
#define CKPTDP_DISPATCH_INTERNAL_DISTRIBUTED_BRANCH_AND_BOUND_H_

#include <functional>

#include "ckptdp/communicator.h"
#include "dispatch/internal/branch_and_bound.h"
#include "dispatch/internal/solver_log.h"

namespace ckptdp::internal {

// Collective: rank 0's root bound and incumbent (evaluated exactly here) on every rank, so
// that every rank starts, or skips, the same search.
absl::Status AgreeOnRoot(const ScenarioContext& context, const Communicator& comm,
                         EngineOutcome& root);

// The search's node step: processes `node` against root.incumbent, which it may improve.
using ExpandNode = std::function<absl::StatusOr<NodeExpansion>(const BranchNode&)>;

// Collective: the search from `first` in rounds (see above), updating `root` as
// BranchAndBound does (incumbent, bound, nodes, status). `closed` is the least bound of the
// part of the tree already removed (the root's fixings).
absl::Status DistributedBestFirst(const ScenarioContext& context, const Communicator& comm,
                                  const SolveOptions& options, const Deadline& deadline,
                                  SolverLog& log, EngineOutcome& root, BranchNode first,
                                  double closed, const ExpandNode& expand);

// The bytes of one expansion, as the round's Allgather carries it (tests use them too).
void PackExpansion(const NodeExpansion& expansion, BytesWriter& out);
NodeExpansion UnpackExpansion(BytesReader& in);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_DISTRIBUTED_BRANCH_AND_BOUND_H_
