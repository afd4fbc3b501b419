// The neighbourhood search after the root, over the ranks of a distributed solve
// (docs/distributed.md).
//
// The search runs in batches. In each, every rank runs a batch of rounds of
// ImproveByNeighbourhoodSearch (neighbourhood.h) on the shared incumbent with its own seed
// stream (drawn from the search's seed, the rank and the batch number), then the ranks
// share the cheapest schedule (AdoptCheapest: every rank accepts it only after its own
// exact evaluation). The search ends on every rank at once, decided from gathered values:
// when the rounds of all ranks since the shared incumbent last improved reach R times
// options.stall_rounds (each rank's share is the single process's budget: about the same
// wall clock, R times the rounds), when some rank's deadline has passed, or when the
// shared cost is good enough. The result depends on R (the seeds) but not on the thread count, and
// a given R gives the same schedule run after run (time limits aside).
#ifndef CKPTDP_DISPATCH_INTERNAL_DISTRIBUTED_SEARCH_H_
#define CKPTDP_DISPATCH_INTERNAL_DISTRIBUTED_SEARCH_H_

#include <cstdint>
#include <functional>
#include <optional>

#include "ckptdp/communicator.h"
#include "dispatch/internal/neighbourhood.h"

namespace ckptdp::internal {

// The seed of a rank's batch: the same on every platform, different for every (rank, batch).
std::uint64_t BatchSeed(std::uint64_t seed, int rank, int batch);

// Rounds per rank between two synchronisation points: a quarter of a rank's stall budget,
// so that a stall is noticed within a few batches, but at least 25 (each
// batch recomputes the jobs' excess, about one path solve per job) and at most 500.
int BatchRounds(int stall_rounds);

// What the synchronisation points cost (docs/distributed.md quotes the log line).
struct SearchTraffic {
  int batches = 0;
  int shared = 0;          // batches after which a rank's cheaper schedule was shared
  std::int64_t bytes = 0;  // received by this rank
};

// Collective: improves `incumbent` (present on every rank) as described above. The stats
// are summed over the ranks, the same on every rank.
absl::StatusOr<NeighbourhoodStats> DistributedNeighbourhoodSearch(
    const ScenarioContext& context, Workspaces& work, const Communicator& comm,
    std::optional<Evaluated>& incumbent, const Multipliers& prices,
    const NeighbourhoodOptions& options, const Deadline& deadline,
    const std::function<bool(double)>& good_enough, SearchTraffic& traffic);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_DISTRIBUTED_SEARCH_H_
