// Large-neighbourhood search (ruin and recreate) on a feasible schedule.
//
// Local search (ImproveByLocalSearch) moves one job at a time, so it stalls wherever the
// GPU capacity is saturated: no single job can move into a full slot even when two jobs
// trading slots would pay. Each round here removes a seed job (half the time drawn by its
// excess at the multipliers: its path's cost above its cheapest one) and a few related
// jobs (whose windows overlap the seed's, or that train in one slot where it trains),
// re-inserts them one at a time, in random order, on their cheapest path against the exact
// marginal cost of the load left in place plus a random share of the GPU shadow prices (the
// Lagrangian mu, which stand in for the jobs not yet re-inserted) and with a random share
// of the energy cost taken from lambda, re-routes each once more
// at the exact marginal cost, and keeps the new schedule if its exact evaluation (battery
// DP included) is cheaper. The random choices come from a seeded generator and the search
// is serial, so the result does not depend on the thread count. docs/engine.md.
#ifndef CKPTDP_DISPATCH_INTERNAL_NEIGHBOURHOOD_H_
#define CKPTDP_DISPATCH_INTERNAL_NEIGHBOURHOOD_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "dispatch/internal/evaluation.h"
#include "dispatch/internal/guided_search.h"
#include "dispatch/internal/multipliers.h"
#include "dispatch/internal/stop_rules.h"

namespace ckptdp::internal {

// From this many jobs the search runs into the time limit (fleets) rather than ending by
// its stall rule within a fraction of a second (the paper and small instances); two
// defaults change there: smaller neighbourhoods without a battery (ResolveNeighbourhoodSize)
// and two streams (portfolio_search.h).
inline constexpr int kFleetSearchMinJobs = 16;

// Jobs a round removes at most for SolveOptions::neighbourhood_size (0: auto): 6, except
// kFleetNeighbourhoodSize from kFleetSearchMinJobs jobs without a battery, where a round's
// time is its path solves (the screening spares most full evaluations) and more, smaller
// rounds closed more of the gap in the same time. With a battery, on the 512-job week they
// improved S6 far less often per round (docs/benchmarks.md, "Smaller neighbourhoods and a
// portfolio on fleets"; measured before the battery screen, battery_screen.h).
inline constexpr int kFleetNeighbourhoodSize = 3;
int ResolveNeighbourhoodSize(int requested, int jobs, bool battery);

struct NeighbourhoodOptions {
  int max_removed = 6;     // jobs removed per round at most (at least 2 when there are 2)
  int stall_rounds = 200;  // stop after this many rounds in a row without improvement
  int max_rounds = std::numeric_limits<int>::max();  // and after this many rounds in all
  std::uint64_t seed = 1;                            // of the round's random choices
  // x-bar of the Lagrangian phase (guided_search.h), or null: with it, a third of the
  // rounds are relaxation-induced neighbourhoods (RINS).
  const RelaxedAverage* guide = nullptr;
  // Every reoptimise_every-th round (0: never) re-optimises 2-3 interacting jobs jointly
  // with the others fixed instead of ruin and recreate (pair_reoptimisation.h); its group
  // is drawn from a stream of its own, derived from `seed`.
  int reoptimise_every = 0;
  // Whether moves that cannot pay skip the exact evaluation (the screen: without a
  // battery by slot costs, with one by battery_screen.h's bound). Only tests turn it off,
  // to check that the search takes the same path either way.
  bool screen_moves = true;
  // Called after each improvement with the new cost and the rounds so far, or empty.
  std::function<void(double cost, int rounds)> on_improvement;
};

struct NeighbourhoodStats {
  int rounds = 0;
  int improvements = 0;
  int evaluations = 0;    // full evaluations (the others are screened)
  int guided_rounds = 0;  // relaxation-induced (RINS) rounds, and their improvements
  int guided_improvements = 0;
  int group_rounds = 0;        // joint re-optimisations of 2-3 jobs, their improvements, and
  int group_improvements = 0;  // how many proved the group's optimum (no battery)
  int group_proven = 0;

  // Sums the counts of several searches (the streams of a portfolio, the ranks).
  NeighbourhoodStats& operator+=(const NeighbourhoodStats& other) {
    rounds += other.rounds;
    improvements += other.improvements;
    evaluations += other.evaluations;
    guided_rounds += other.guided_rounds;
    guided_improvements += other.guided_improvements;
    group_rounds += other.group_rounds;
    group_improvements += other.group_improvements;
    group_proven += other.group_proven;
    return *this;
  }
};

// Improves `current` (feasible) in place; `prices`, the Lagrangian multipliers at the best
// bound (either part may be empty: no anticipation), pick seeds and steer the re-insertion
// (see above). Stops after `options.stall_rounds` rounds without improvement, at
// `deadline`, or as soon as `good_enough(cost)` holds for the incumbent cost.
absl::StatusOr<NeighbourhoodStats> ImproveByNeighbourhoodSearch(
    const ScenarioContext& context, Workspaces& work, Evaluated& current, const Multipliers& prices,
    const NeighbourhoodOptions& options, const Deadline& deadline,
    const std::function<bool(double)>& good_enough);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_NEIGHBOURHOOD_H_
