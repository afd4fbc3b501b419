// Primal heuristics guided by the relaxation (issue 21, docs/engine.md "Guided by the
// relaxation").
//
// The Lagrangian phase averages the jobs' relaxed paths over its iterations (later ones
// weighted more): x-bar, a fractional plan that says, per job and slot, in what share of
// the relaxed solutions the job trains there. Two heuristics use it:
//
// * RINS (relaxation-induced neighbourhoods, Danna, Rothberg and Le Pape 2005): a job whose
//   incumbent path disagrees with x-bar is one the relaxation would move; the neighbourhood
//   search frees such jobs together (drawn by their disagreement), fixes the rest, and
//   re-solves them with the GPU price of each slot discounted where x-bar trains them.
// * Diving on x-bar: jobs are fixed one at a time, most committed first, each on its
//   cheapest path against the exact marginal cost of the jobs fixed before it plus the GPU
//   price of the slots x-bar leaves it out of.
#ifndef CKPTDP_DISPATCH_INTERNAL_GUIDED_SEARCH_H_
#define CKPTDP_DISPATCH_INTERNAL_GUIDED_SEARCH_H_

#include <optional>
#include <vector>

#include "dispatch/internal/evaluation.h"
#include "dispatch/internal/multipliers.h"
#include "dispatch/internal/path_dp.h"
#include "dispatch/internal/stop_rules.h"

namespace ckptdp::internal {

// x-bar: per job and slot, the weighted share of the relaxed paths that train there.
class RelaxedAverage {
 public:
  bool empty() const { return total_weight_ <= 0; }
  // Adds one iteration's relaxed paths (one per job). Each weighs kGrowth times the one
  // before: the early iterations, far from the dual optimum, fade out (over the last
  // ~1 / (kGrowth - 1) iterations, as the volume algorithm's x-bar does).
  void Add(const ScenarioContext& context, const std::vector<PathSolution>& plans);
  static constexpr double kGrowth = 1.02;
  // The share in [0, 1] of job j's relaxed paths that train in slot t.
  double Share(int job, int slot) const {
    return empty() ? 0.0 : train_[job][slot] / total_weight_;
  }
  // Per job: sum over slots of |trains in the schedule - Share|, in slots.
  std::vector<double> Disagreement(const ScenarioContext& context, const Schedule& schedule) const;

 private:
  std::vector<std::vector<double>> train_;  // [job][slot], weighted
  double total_weight_ = 0;
  double next_weight_ = 1;
};

// Adds share * mu_t * (1 - Share(job, t)) per GPU in slot t to every mode's prefix costs:
// the GPU price of a slot, waived where the relaxation trains the job.
void AddGuidedGpuPrice(const ScenarioContext& context, int job, const Multipliers& prices,
                       const RelaxedAverage& guide, double share, EdgeCosts& costs);

// Replaces a share of each slot's marginal energy cost in `costs` by the Lagrangian energy
// price lambda_t per kW. With a battery the marginal cost against a fixed battery schedule
// overstates what a load shift costs once the battery re-dispatches; lambda prices energy
// as the relaxation does, battery included (and stands in for jobs not yet placed).
void BlendEnergyPrice(const ScenarioContext& context, int job, const std::vector<double>& lambda,
                      double share, EdgeCosts& costs);

// Dives on x-bar: fixes the jobs one at a time, most committed first (the largest sum of
// Share over its window times its GPUs in its cheapest mode), each on its cheapest path
// against the exact marginal cost of the jobs fixed before it, with `energy_share` of the
// energy priced by lambda and `gpu_share` of the guided GPU price. Empty if a job finds
// no path in the residual capacity or the deadline passes.
std::optional<Schedule> DiveOnAverage(const ScenarioContext& context, Workspaces& work,
                                      const RelaxedAverage& guide, const Multipliers& prices,
                                      double energy_share, double gpu_share,
                                      const Deadline& deadline);

// Dives on x-bar with a few price blends, improves each dive by local search and keeps
// the cheapest in `incumbent` (feasible) if it is cheaper. Returns how many dives were
// cheaper than the incumbent of their time. `threads`: of the local search (repair.h).
absl::StatusOr<int> ImproveByDiving(const ScenarioContext& context, Workspaces& work,
                                    const RelaxedAverage& guide, const Multipliers& prices,
                                    const Deadline& deadline, int threads, Evaluated& incumbent);

}  // namespace ckptdp::internal

#endif  // CKPTDP_DISPATCH_INTERNAL_GUIDED_SEARCH_H_
