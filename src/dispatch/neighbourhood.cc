#include "dispatch/internal/neighbourhood.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <utility>

namespace ckptdp::internal {
namespace {

using Clock = std::chrono::steady_clock;

// A uniform draw from [0, n) that is the same on every standard library (unlike
// std::uniform_int_distribution): results must not depend on the platform either.
int Draw(std::mt19937_64& rng, int n) {
  return static_cast<int>(rng() % static_cast<std::uint64_t>(n));
}

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

// The seed job and up to max_removed - 1 others whose windows overlap it, in random order.
std::vector<int> PickNeighbourhood(const Instance& in, int max_removed, std::mt19937_64& rng) {
  const int jobs = static_cast<int>(in.jobs.size());
  const int seed = Draw(rng, jobs);
  const Job& s = in.jobs[seed];
  std::vector<int> overlapping;
  for (int j = 0; j < jobs; ++j) {
    const Job& o = in.jobs[j];
    if (j != seed && o.release_slot < s.deadline_slot && s.release_slot < o.deadline_slot) {
      overlapping.push_back(j);
    }
  }
  Shuffle(rng, overlapping);
  const int others = static_cast<int>(overlapping.size());
  const int want = std::min(others, 1 + Draw(rng, std::max(1, max_removed - 1)));
  std::vector<int> removed(overlapping.begin(), overlapping.begin() + want);
  removed.push_back(seed);
  Shuffle(rng, removed);
  return removed;
}

}  // namespace

absl::StatusOr<NeighbourhoodStats> ImproveByNeighbourhoodSearch(
    ScenarioContext& c, Evaluated& current, const std::vector<double>& gpu_price,
    const NeighbourhoodOptions& options, Clock::time_point deadline,
    const std::function<bool(double)>& good_enough) {
  const Instance& in = *c.instance;
  const int slots = c.slots();
  NeighbourhoodStats stats;
  if (c.num_jobs() == 0 || !current.feasible) return stats;
  std::mt19937_64 rng(options.seed);
  EdgeCosts costs;
  std::vector<double> aidc, shift;
  std::vector<int> gpus;
  constexpr double kShares[] = {0.0, 0.5, 1.0};
  // Rounds are deterministic given the removed jobs, their order and the share: on small
  // instances the same draw recurs often, and is skipped until the incumbent changes.
  std::set<std::vector<int>> tried;
  int since_improvement = 0;
  while (since_improvement < options.stall_rounds && Clock::now() < deadline &&
         !good_enough(current.cost_usd)) {
    ++stats.rounds;
    ++since_improvement;
    const std::vector<int> removed = PickNeighbourhood(in, options.max_removed, rng);
    const int share_index = Draw(rng, 3);
    const double share = kShares[share_index];
    std::vector<int> key = removed;
    key.push_back(share_index);
    if (!tried.insert(std::move(key)).second) continue;

    // Pricing sees the load the grid serves under the current battery schedule; the exact
    // evaluation below re-optimises the battery for the new load.
    shift.assign(slots, 0.0);
    if (c.traits.battery) {
      for (int t = 0; t < slots; ++t) {
        shift[t] = current.power.slots[t].charge_kw - current.power.slots[t].discharge_kw;
      }
    }
    aidc = current.load.aidc_kw;
    gpus = current.load.gpus;
    Schedule trial = current.schedule;
    for (int j : removed) AddJobLoad(c, j, trial.jobs[j], -1, aidc, gpus);
    bool placed = true;
    for (int j : removed) {
      PriceMarginal(c, j, aidc, gpus, shift, costs);
      AddGpuPrice(c, j, gpu_price, share, costs);
      PathSolution p = c.jobs[j]->Solve(costs);
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
      PathSolution p = c.jobs[j]->Solve(costs);
      if (p.feasible && Improves(p.cost, PlanCost(c, j, trial.jobs[j], costs))) {
        trial.jobs[j] = std::move(p.runs);
      }
      AddJobLoad(c, j, trial.jobs[j], +1, aidc, gpus);
    }
    if (trial == current.schedule) continue;
    CKPTDP_ASSIGN_OR_RETURN(Evaluated e, Evaluate(c, std::move(trial)));
    if (e.feasible && Improves(e.cost_usd, current.cost_usd)) {
      current = std::move(e);
      ++stats.improvements;
      since_improvement = 0;
      tried.clear();
    }
  }
  return stats;
}

}  // namespace ckptdp::internal
