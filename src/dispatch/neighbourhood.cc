#include "dispatch/internal/neighbourhood.h"

#include "dispatch/internal/battery_screen.h"
#include "dispatch/internal/guided_search.h"
#include "dispatch/internal/pair_reoptimisation.h"
#include "dispatch/internal/seeded_draws.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <set>
#include <utility>

namespace ckptdp::internal {
namespace {

template <typename T>
void Shuffle(std::mt19937_64& rng, std::vector<T>& v) {
  for (int i = static_cast<int>(v.size()) - 1; i > 0; --i) std::swap(v[i], v[Draw(rng, i + 1)]);
}

// Adds share * gpu_price[t] per GPU in slot t to every mode's prefix costs.
void AddGpuPrice(const ScenarioContext& c, int job, const std::vector<double>& gpu_price,
                 double share, EdgeCosts& costs) {
  if (gpu_price.empty() || share == 0) return;
  const JobSubproblem& sub = *c.jobs[job];
  for (int m = 0; m < sub.num_modes(); ++m) {
    double* row = costs.PrefixRow(m);
    double added = 0;
    for (int t = 0; t < c.slots(); ++t) {
      added += share * gpu_price[t] * sub.gpus(m);
      row[t + 1] += added;
    }
  }
}

// A relaxation-induced neighbourhood (RINS): the seed and up to max_removed - 1 jobs whose
// windows overlap its own, all drawn by their disagreement with x-bar (guided_search.h).
std::vector<int> PickRelaxationNeighbourhood(const ScenarioContext& c,
                                             const std::vector<double>& disagreement,
                                             int max_removed, std::mt19937_64& rng) {
  const Instance& in = *c.instance;
  const int seed = DrawWeighted(rng, disagreement);
  const Job& s = in.jobs[seed];
  std::vector<int> related;
  std::vector<double> weight;
  for (int j = 0; j < c.num_jobs(); ++j) {
    const Job& o = in.jobs[j];
    if (j != seed && o.release_slot < s.deadline_slot && s.release_slot < o.deadline_slot) {
      related.push_back(j);
      weight.push_back(disagreement[j]);
    }
  }
  const int want =
      std::min(static_cast<int>(related.size()), 1 + Draw(rng, std::max(1, max_removed - 1)));
  std::vector<int> removed;
  for (int i = 0; i < want; ++i) {
    const int pick = DrawWeighted(rng, weight);
    removed.push_back(related[pick]);
    related.erase(related.begin() + pick);
    weight.erase(weight.begin() + pick);
  }
  removed.push_back(seed);
  Shuffle(rng, removed);
  return removed;
}

// The seed job and up to max_removed - 1 related others, in random order. Related means,
// at random, either a window that overlaps the seed's, or training in the current schedule
// in one slot where the seed trains: the jobs it competes with for that slot's capacity.
std::vector<int> PickNeighbourhood(const ScenarioContext& c, const Schedule& schedule,
                                   const std::vector<double>& seed_weight, int max_removed,
                                   std::mt19937_64& rng) {
  const Instance& in = *c.instance;
  const int jobs = static_cast<int>(in.jobs.size());
  const int seed = Draw(rng, 2) == 0 ? DrawWeighted(rng, seed_weight) : Draw(rng, jobs);
  const Job& s = in.jobs[seed];
  std::vector<int> related;
  const std::vector<Run>& seed_runs = schedule.jobs[seed];
  if (Draw(rng, 2) == 0 && !seed_runs.empty()) {
    const Run& run = seed_runs[Draw(rng, static_cast<int>(seed_runs.size()))];
    const int slot = run.start_slot + Draw(rng, run.end_slot - run.start_slot);
    for (int j = 0; j < jobs; ++j) {
      if (j == seed) continue;
      for (const Run& r : schedule.jobs[j]) {
        if (r.start_slot <= slot && slot < r.end_slot) {
          related.push_back(j);
          break;
        }
      }
    }
  } else {
    for (int j = 0; j < jobs; ++j) {
      const Job& o = in.jobs[j];
      if (j != seed && o.release_slot < s.deadline_slot && s.release_slot < o.deadline_slot) {
        related.push_back(j);
      }
    }
  }
  Shuffle(rng, related);
  const int others = static_cast<int>(related.size());
  const int want = std::min(others, 1 + Draw(rng, std::max(1, max_removed - 1)));
  std::vector<int> removed(related.begin(), related.begin() + want);
  removed.push_back(seed);
  Shuffle(rng, removed);
  return removed;
}

// Each job's excess at the Lagrangian prices: what its current path costs above its
// cheapest path there. The gap between the incumbent and the bound is mostly the sum of
// these (docs/engine.md), so jobs with a large excess are the promising seeds.
void ComputeExcess(const ScenarioContext& c, Workspaces& work, const Schedule& schedule,
                   const Multipliers& prices, EdgeCosts& costs, std::vector<double>& excess) {
  excess.assign(c.num_jobs(), 0.0);
  if (prices.lambda.empty() || prices.mu.empty()) return;
  for (int j = 0; j < c.num_jobs(); ++j) {
    PriceLagrangian(c, j, prices, costs);
    const PathSolution best = c.jobs[j]->Solve(costs, work.Local());
    if (best.feasible)
      excess[j] = std::max(0.0, PlanCost(c, j, schedule.jobs[j], costs) - best.cost);
  }
}

// Moves that cannot pass the acceptance test are dropped before the full evaluation (half
// its tolerance, so that round-off never drops a move the exact evaluation would keep).
// Without a battery a slot's cost depends on its own load only, so the change of cost of a
// move is a sum over the slots whose load it changed. With one, the battery's Lagrangian
// bound (battery_screen.h) is updated the same way, slot by slot, and a move whose bound is
// not below the current cost is dropped; without that bound (a grid contract) every move
// is evaluated.
bool MayImprove(const ScenarioContext& c, const Evaluated& current,
                const std::optional<BatteryLoadBound>& screen,
                const std::vector<double>& trial_aidc) {
  const double tolerance = 0.5e-9 * std::max(1.0, std::abs(current.cost_usd));
  if (c.traits.battery) {
    return !screen || screen->LowerBoundUsd(trial_aidc) < current.cost_usd - tolerance;
  }
  double delta = 0;
  for (int t = 0; t < c.slots(); ++t) {
    const double before = current.load.aidc_kw[t];
    if (trial_aidc[t] != before) {
      delta += SlotCostUsd(c.power, t, trial_aidc[t]) - SlotCostUsd(c.power, t, before);
    }
  }
  return delta < -tolerance;
}

// The group rounds' own random stream (xor-ed into the search's seed): enabling them
// leaves the draws of the other rounds' stream as they were.
constexpr std::uint64_t kGroupStream = 0x9e3779b97f4a7c15ULL;

// One round of joint re-optimisation of 2-3 interacting jobs (pair_reoptimisation.h),
// skipped if the same group was tried since the last improvement. Returns whether the
// incumbent improved.
absl::StatusOr<bool> ReoptimiseGroupRound(const ScenarioContext& c, Workspaces& work,
                                          Evaluated& current, const std::vector<double>& weight,
                                          std::mt19937_64& rng, std::set<std::vector<int>>& tried,
                                          NeighbourhoodStats& stats) {
  const std::vector<int> group = PickInteractingGroup(c, current, weight, rng);
  std::vector<int> key = group;
  std::sort(key.begin(), key.end());
  key.push_back(-1);  // apart from the ruin-and-recreate rounds' keys
  if (group.size() < 2 || !tried.insert(std::move(key)).second) return false;
  ++stats.group_rounds;
  CKPTDP_ASSIGN_OR_RETURN(const GroupReoptimisation r,
                          ReoptimiseGroup(c, work, current, group, GroupReoptimisationOptions{}));
  if (r.proven) ++stats.group_proven;
  if (r.improved) {
    ++stats.improvements;
    ++stats.group_improvements;
  }
  return r.improved;
}

}  // namespace

int ResolveNeighbourhoodSize(int requested, int jobs, bool battery) {
  if (requested > 0) return std::max(2, requested);
  return jobs >= kFleetSearchMinJobs && !battery ? kFleetNeighbourhoodSize
                                                 : NeighbourhoodOptions{}.max_removed;
}

absl::StatusOr<NeighbourhoodStats> ImproveByNeighbourhoodSearch(
    const ScenarioContext& c, Workspaces& work, Evaluated& current, const Multipliers& prices,
    const NeighbourhoodOptions& options, const Deadline& deadline,
    const std::function<bool(double)>& good_enough) {
  const int slots = c.slots();
  NeighbourhoodStats stats;
  if (c.num_jobs() == 0 || !current.feasible) return stats;
  std::mt19937_64 rng(options.seed);
  std::mt19937_64 group_rng(options.seed ^ kGroupStream);
  EdgeCosts costs;
  std::vector<double> aidc, shift;
  std::vector<int> gpus;
  constexpr double kShares[] = {0.0, 0.5, 1.0};
  // Rounds are deterministic given the removed jobs, their order and the share: on small
  // instances the same draw recurs often, and is skipped until the incumbent changes.
  std::set<std::vector<int>> tried;
  std::vector<double> excess;
  // Refreshing the excess costs one solve per job, as much as a few dozen rounds.
  constexpr int kExcessRefreshRounds = 500;
  int since_improvement = 0;
  static const RelaxedAverage kNoGuide;
  const RelaxedAverage& guide = options.guide != nullptr ? *options.guide : kNoGuide;
  const bool guided = !guide.empty() && !prices.mu.empty();
  std::vector<double> disagreement;
  bool disagreement_stale = true;
  std::optional<BatteryLoadBound> screen;  // with a battery: MayImprove's bound
  bool screen_stale = true;
  while (since_improvement < options.stall_rounds && stats.rounds < options.max_rounds &&
         !deadline.Passed() && !good_enough(current.cost_usd)) {
    ++stats.rounds;
    ++since_improvement;
    if (stats.rounds % kExcessRefreshRounds == 1)
      ComputeExcess(c, work, current.schedule, prices, costs, excess);
    if (guided && disagreement_stale) {
      disagreement = guide.Disagreement(c, current.schedule);
      disagreement_stale = false;
    }
    if (options.reoptimise_every > 0 && stats.rounds % options.reoptimise_every == 0) {
      CKPTDP_ASSIGN_OR_RETURN(const bool improved,
                              ReoptimiseGroupRound(c, work, current, guided ? disagreement : excess,
                                                   group_rng, tried, stats));
      if (improved) {
        since_improvement = 0;
        tried.clear();
        disagreement_stale = true;
        screen_stale = true;
        if (options.on_improvement) options.on_improvement(current.cost_usd, stats.rounds);
      }
      continue;
    }
    // With x-bar, a third of the rounds are relaxation-induced (RINS); without it the
    // draws are those of the plain search.
    const bool rins = guided && Draw(rng, 3) == 0;
    const std::vector<int> removed =
        rins ? PickRelaxationNeighbourhood(c, disagreement, options.max_removed, rng)
             : PickNeighbourhood(c, current.schedule, excess, options.max_removed, rng);
    const int share_index = Draw(rng, 3);
    const double share = kShares[share_index];
    const int energy_index = prices.lambda.empty() ? 0 : Draw(rng, 3);
    const double energy_share = kShares[energy_index];
    std::vector<int> key = removed;
    key.push_back(share_index);
    key.push_back(energy_index);
    key.push_back(rins ? 1 : 0);
    if (!tried.insert(std::move(key)).second) continue;
    if (rins) ++stats.guided_rounds;

    // Pricing sees the load the grid serves under the current battery schedule; the exact
    // evaluation below re-optimises the battery for the new load.
    if (c.traits.battery) {
      shift = BatteryNetShift(current.power);
    } else {
      shift.assign(slots, 0.0);
    }
    aidc = current.load.aidc_kw;
    gpus = current.load.gpus;
    Schedule trial = current.schedule;
    for (int j : removed) AddJobLoad(c, j, trial.jobs[j], -1, aidc, gpus);
    bool placed = true;
    for (int j : removed) {
      PriceMarginal(c, j, aidc, gpus, shift, costs);
      BlendEnergyPrice(c, j, prices.lambda, energy_share, costs);
      if (rins) {
        AddGuidedGpuPrice(c, j, prices, guide, share, costs);
      } else {
        AddGpuPrice(c, j, prices.mu, share, costs);
      }
      PathSolution p = c.jobs[j]->Solve(costs, work.Local());
      if (!p.feasible) {
        placed = false;
        break;
      }
      trial.jobs[j] = std::move(p.runs);
      AddJobLoad(c, j, trial.jobs[j], +1, aidc, gpus);
    }
    if (!placed) continue;
    // The first jobs re-inserted did not see the later ones: re-route each once more.
    for (int j : removed) {
      AddJobLoad(c, j, trial.jobs[j], -1, aidc, gpus);
      PriceMarginal(c, j, aidc, gpus, shift, costs);
      PathSolution p = c.jobs[j]->Solve(costs, work.Local());
      if (p.feasible && Improves(p.cost, PlanCost(c, j, trial.jobs[j], costs))) {
        trial.jobs[j] = std::move(p.runs);
      }
      AddJobLoad(c, j, trial.jobs[j], +1, aidc, gpus);
    }
    if (trial == current.schedule) continue;
    if (options.screen_moves) {
      if (c.traits.battery && screen_stale) {
        screen = BatteryLoadBound::Build(c.power, current.power);
        screen_stale = false;
      }
      if (!MayImprove(c, current, screen, aidc)) continue;
    }
    ++stats.evaluations;
    CKPTDP_ASSIGN_OR_RETURN(Evaluated e, Evaluate(c, std::move(trial)));
    if (e.feasible && Improves(e.cost_usd, current.cost_usd)) {
      current = std::move(e);
      ++stats.improvements;
      if (rins) ++stats.guided_improvements;
      since_improvement = 0;
      tried.clear();
      disagreement_stale = true;
      screen_stale = true;
      if (options.on_improvement) options.on_improvement(current.cost_usd, stats.rounds);
    }
  }
  return stats;
}

}  // namespace ckptdp::internal
