// The neighbourhood search on several cores, with a result that does not depend on them
// (issue 21, docs/engine.md "A portfolio of search streams").
//
// One search (neighbourhood.h) is serial: a round re-inserts jobs against the load the
// previous round left, so rounds cannot run side by side. A portfolio can: S streams search
// from the same incumbent, each with its own seed stream and its own workspaces, in
// batches; after each batch the cheapest stream's schedule (the lowest stream index among
// equals) becomes every stream's incumbent. The streams are the unit of work, not the
// threads: with fewer threads than streams the streams of a batch run one after another,
// with the same draws, so a given S gives the same schedule on any thread count (time
// limits aside). The search ends when the rounds of all streams since the incumbent last
// improved reach S times options.stall_rounds (each stream has the single search's stall
// budget: the same wall clock on S cores), at the deadline, or when good_enough holds.
// With S = 1 it is ImproveByNeighbourhoodSearch itself, draw for draw.
#ifndef CKPTDP_DISPATCH_INTERNAL_PORTFOLIO_SEARCH_H_
#define CKPTDP_DISPATCH_INTERNAL_PORTFOLIO_SEARCH_H_

#include <functional>

#include "dispatch/internal/neighbourhood.h"

namespace ckptdp::internal {

// The streams for SolveOptions::search_streams (0: auto): 1 below kFleetSearchMinJobs
// jobs, where the search ends by its stall rule within a fraction of a second and a
// portfolio would only multiply its work, else 2.
int ResolveSearchStreams(int requested, int jobs);

// Improves `incumbent` (feasible) in place as described above, on up to `threads` worker
// threads (0: all cores). options.on_improvement, if set, is called after each batch that
// improved the incumbent, from the calling thread.
absl::StatusOr<NeighbourhoodStats> PortfolioNeighbourhoodSearch(
    const ScenarioContext& context, Workspaces& work, Evaluated& incumbent,
    const Multipliers& prices, const NeighbourhoodOptions& options, int streams, int threads,
    const Deadline& deadline, const std::function<bool(double)>& good_enough);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_PORTFOLIO_SEARCH_H_
