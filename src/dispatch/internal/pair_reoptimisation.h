// Re-optimisation of a pair or triple of jobs with every other job fixed (issue 21,
// docs/engine.md "Re-optimising a pair or triple").
//
// The neighbourhood search re-inserts the jobs it removes one at a time, each on its
// cheapest path against the others' load: a greedy step that stalls where two jobs would
// have to move together (both leave a dear slot only if the other makes room elsewhere).
// Here the load of the other jobs is a fixed background and the 2-3 freed jobs are
// re-solved jointly, by price-and-enumerate (Dantzig-Wolfe column generation):
//
// * The group's own Lagrangian dual: the joint marginal cost of the group's load L_t on
//   top of the background, F_t(L) = SlotCostUsd(bg_t + L) - SlotCostUsd(bg_t) (convex), is
//   split off with a price lambda_t per kW and the residual GPUs with mu_t per GPU. Each
//   job then solves its exact path DP at (lambda, mu); each slot minimises
//   F_t(L) - lambda_t L over L in [0, residual power], which lies at an end or a kink of
//   F_t. The sum is a lower bound on the group's best marginal cost (with a battery: at the
//   incumbent's fixed battery schedule); a subgradient method raises it.
// * Every path the dual produces is a column; so is every exact best response of one job
//   to the others' chosen columns (its DP at the exact marginal cost).
// * The master picks one column per job minimising the exact joint cost sum_t F_t(.)
//   within the residual GPU and power capacity, by complete enumeration (the pools are
//   small), and then each job best-responds again until no column changes.
//
// When the master's best equals the dual bound (no battery), the group's optimum is proven.
// The result is accepted only if the exact evaluation of the whole schedule (battery DP
// included) is cheaper than the incumbent, so the move never makes it worse. Everything is
// serial and deterministic.
#ifndef CKPTDP_DISPATCH_INTERNAL_PAIR_REOPTIMISATION_H_
#define CKPTDP_DISPATCH_INTERNAL_PAIR_REOPTIMISATION_H_

#include <random>
#include <vector>

#include "dispatch/internal/evaluation.h"

namespace ckptdp::internal {

struct GroupReoptimisationOptions {
  int dual_iterations = 40;  // subgradient iterations of the group's dual
  // The master enumerates at most this many combinations: the pools hold at most its
  // square root (pairs: 32 columns per job) or cube root (triples: 10).
  int max_combinations = 1024;
};

struct GroupReoptimisation {
  bool improved = false;      // `current` was replaced by a cheaper schedule
  bool proven = false;        // the group's optimum (no battery) was proven by the dual bound
  double group_cost = 0;      // the best joint marginal cost found (USD above the background)
  double group_bound = 0;     // the dual bound on it (-inf if none)
  double incumbent_cost = 0;  // the group's marginal cost in `current` before the move
};

// Re-optimises `jobs` (2 or 3 distinct indices; 1 is allowed) of the feasible `current`
// with every other job fixed, and replaces `current` if the exact evaluation of the result
// is cheaper (Improves). Never makes `current` worse.
absl::StatusOr<GroupReoptimisation> ReoptimiseGroup(const ScenarioContext& context,
                                                    Workspaces& work, Evaluated& current,
                                                    const std::vector<int>& jobs,
                                                    const GroupReoptimisationOptions& options);

// Draws 2 or 3 jobs that interact: a seed by `weight` (uniformly if all weights are zero),
// then, in the slot of the seed's schedule where the marginal kW costs most, the jobs that
// train there with it (they compete for that slot's capacity), or if none, jobs whose
// windows overlap the seed's; partners are drawn by `weight` too. Uses only `rng`.
std::vector<int> PickInteractingGroup(const ScenarioContext& context, const Evaluated& current,
                                      const std::vector<double>& weight, std::mt19937_64& rng);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_PAIR_REOPTIMISATION_H_
