// What the ranks of a distributed solve exchange besides the job subproblems' plans
// (dual.h): schedules, the best incumbent of their searches, and rank 0's decisions.
// docs/distributed.md.
#ifndef CKPTDP_DISPATCH_INTERNAL_DISTRIBUTED_H_
#define CKPTDP_DISPATCH_INTERNAL_DISTRIBUTED_H_

#include <optional>
#include <vector>

#include "ckptdp/communicator.h"
#include "ckptdp/engine.h"
#include "dispatch/internal/evaluation.h"

namespace ckptdp::internal {

// The communicator of a solve if it has more than one rank, else null: the engine's code
// paths for one process stay exactly as they were.
const Communicator* DistributedComm(const SolveOptions& options);

// Whether this process takes the decisions that must be the same on every rank (rank 0,
// or the only process).
inline bool Leader(const Communicator* comm) { return comm == nullptr || comm->root(); }

void PackSchedule(const Schedule& schedule, BytesWriter& out);
Schedule UnpackSchedule(BytesReader& in);

// At a synchronisation point of a search whose ranks all held an incumbent of cost
// `shared` (+inf: none, or not the same on every rank) and may have improved their own
// since, every rank offers the cost of its incumbent (+inf: none), gathered together with
// whatever else the ranks exchange there.
double OfferedCost(const std::optional<Evaluated>& incumbent);

// Collective, given the offers of every rank in rank order (the same on every rank): if the
// cheapest is below `shared`, its rank (ties: the lowest) broadcasts its schedule and every
// other rank accepts it only after its own exact evaluation finds it feasible. Afterwards
// every rank holds the same incumbent, and `shared` is its cost. Returns whether the
// incumbent changed.
absl::StatusOr<bool> AdoptCheapest(const ScenarioContext& context, const Communicator& comm,
                                   const std::vector<double>& offers,
                                   std::optional<Evaluated>& incumbent, double& shared);

// Collective: an Allgather of the offers (8 bytes per rank), then AdoptCheapest.
absl::StatusOr<bool> ShareCheapest(const ScenarioContext& context, const Communicator& comm,
                                   std::optional<Evaluated>& incumbent, double& shared);

// Collective: rank 0's `value` on every rank (a decision that must be the same everywhere).
bool AgreeWithLeader(const Communicator& comm, bool value);

// Collective: rank 0's incumbent (if `send`; evaluated exactly on the other ranks) and a
// decision code on every rank. Returns rank 0's code.
absl::StatusOr<int> FollowLeader(const ScenarioContext& context, const Communicator& comm, int code,
                                 bool send, std::optional<Evaluated>& incumbent);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_DISTRIBUTED_H_
