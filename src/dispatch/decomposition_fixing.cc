#include "dispatch/internal/decomposition_fixing.h"

#include <algorithm>
#include <limits>
#include <vector>

#include "dispatch/internal/decomposition.h"
#include "dispatch/internal/path_dp_backward.h"

namespace ckptdp::internal {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

}  // namespace

void ExcludeChoices(const ScenarioContext& c, int j, const std::vector<char>& excluded,
                    EdgeCosts& costs) {
  const int slots = c.slots(), modes = c.jobs[j]->num_modes(), stride = modes + 1;
  const int release = c.instance->jobs[j].release_slot;
  if (std::find(excluded.begin(), excluded.end(), 1) == excluded.end()) return;
  if (costs.next_blocked.empty())
    costs.next_blocked.assign(static_cast<size_t>(modes) * (slots + 1), slots);
  if (costs.wait_forbidden.empty()) costs.wait_forbidden.assign(slots, 0);
  for (size_t i = 0; i < excluded.size(); ++i) {
    if (!excluded[i]) continue;
    const int t = release + static_cast<int>(i) / stride, choice = static_cast<int>(i) % stride;
    if (choice == 0) {
      costs.wait_forbidden[t] = 1;
    } else {
      costs.next_blocked[static_cast<size_t>(choice - 1) * (slots + 1) + t] = t;
    }
  }
  // next_blocked[t] = first blocked slot >= t: a blocked slot holds itself (ApplyRestrictions).
  for (int m = 0; m < modes; ++m) {
    int* row = costs.next_blocked.data() + static_cast<size_t>(m) * (slots + 1);
    for (int t = slots - 1; t >= 0; --t) {
      if (row[t] != t) row[t] = row[t + 1];
    }
  }
}

NodeFixing ExcludeAboveCutoff(const std::vector<std::vector<double>>& bounds, double cutoff,
                              std::vector<std::vector<char>>& excluded) {
  NodeFixing out;
  if (excluded.empty()) {
    excluded.resize(bounds.size());
    for (size_t j = 0; j < bounds.size(); ++j) excluded[j].assign(bounds[j].size(), 0);
  }
  for (size_t j = 0; j < bounds.size(); ++j) {
    for (size_t i = 0; i < bounds[j].size(); ++i) {
      if (excluded[j][i] || bounds[j][i] < cutoff) continue;
      excluded[j][i] = 1;
      ++out.removed;
      out.removed_bound = std::min(out.removed_bound, bounds[j][i]);
    }
  }
  return out;
}

std::optional<std::vector<std::vector<double>>> DecompositionBound::ChoiceBounds(
    const DecompositionPrices& prices, bool allow_resolves) {
  DecompositionPoint point;
  if (!Evaluate(prices, point)) return std::nullopt;  // also leaves costs_ at these prices
  const ScenarioContext& c = *c_;
  const Instance& in = *c.instance;
  // bound[j][(t - release_j) * (M_j + 1) + choice] = D(pi | x_{j,t} = y_{j,t} = choice).
  std::vector<std::vector<double>> bound(c.num_jobs());
  std::vector<double> backward, through;
  for (int j = 0; j < c.num_jobs(); ++j) {
    const JobSubproblem& sub = *c.jobs[j];
    const auto* graph_sub = dynamic_cast<const GraphSubproblem*>(&sub);
    const Job& job = in.jobs[j];
    const int stride = sub.num_modes() + 1;
    EdgeCosts& costs = costs_[j];
    const double job_side = sub.LowerBound(costs, point.plans[j], work_[j]);
    const double rest = point.value - job_side;
    if (graph_sub != nullptr && PathValuesSupported(graph_sub->graph())) {
      // Evaluate's DP left the forward values of these costs in the job's workspace.
      BackwardValues(graph_sub->graph(), costs, backward);
      CheapestPathThroughChoices(graph_sub->graph(), costs, work_[j].path.forward_values(),
                                 backward, through);
      bound[j].resize(through.size());
      for (size_t i = 0; i < through.size(); ++i) bound[j][i] = rest + through[i];
      continue;
    }
    if (!allow_resolves) return std::nullopt;
    bound[j].assign(static_cast<size_t>(job.deadline_slot - job.release_slot) * stride, kInf);
    // The job side through (t, choice): the path DP with every other level of slot t blocked.
    for (int t = job.release_slot; t < job.deadline_slot; ++t) {
      for (int choice = 0; choice < stride; ++choice) {
        const int level = choice == 0 ? 0 : level_of_mode_[j][choice - 1];
        const SlotRestriction only{j, t, level - 1, level};
        ApplyJobRestrictions(j, &only, costs);
        const PathSolution path = sub.Solve(costs, work_[j]);
        // Infeasible, or excluded by a restriction of this slot: the slot side is infinite.
        if (!path.feasible) continue;
        bound[j][static_cast<size_t>(t - job.release_slot) * stride + choice] =
            rest + sub.LowerBound(costs, path, work_[j]);
      }
    }
    ApplyJobRestrictions(j, nullptr, costs);
  }
  // The slot side with the choice: its cheapest pattern that has it (with the battery
  // inside the slot side: its cheapest trajectory through such a pattern).
  if (battery_slot_on_) {
    std::vector<std::vector<double>> increments;
    BatterySlotChoiceIncrements(prices, increments);
    for (int t = 0; t < c.slots(); ++t) {
      const Slot& s = slots_[t];
      for (size_t k = 0; k < s.jobs.size(); ++k) {
        const int j = s.jobs[k];
        const int stride = c.jobs[j]->num_modes() + 1;
        double* b = bound[j].data() + static_cast<size_t>(t - in.jobs[j].release_slot) * stride;
        for (int choice = 0; choice < stride; ++choice) {
          b[choice] += increments[t][s.price_offset[k] + choice];
        }
      }
    }
    return bound;
  }
  std::vector<double> with_choice;
  for (int t = 0; t < c.slots(); ++t) {
    PatternValues(prices, t, values_, picks_);
    const Slot& s = slots_[t];
    const int n = static_cast<int>(s.jobs.size());
    double slot_min = kInf;
    if (s.unit_dp) {
      // The unit DP's levels (decomposition_slot_dp.h): a forward and a backward pass.
      slot_min = unit_dp_.ChoiceMinima(s.shape, s.table, values_, with_choice);
    } else {
      with_choice.assign(s.table.size(), kInf);
      const int32_t* e = s.entry.data();
      for (size_t p = 0; p < values_.size(); ++p, e += n) {
        for (int k = 0; k < n; ++k) with_choice[e[k]] = std::min(with_choice[e[k]], values_[p]);
      }
      slot_min = *std::min_element(values_.begin(), values_.end());
    }
    for (int k = 0; k < n; ++k) {
      const int j = s.jobs[k];
      const int stride = c.jobs[j]->num_modes() + 1;
      double* b = bound[j].data() + static_cast<size_t>(t - in.jobs[j].release_slot) * stride;
      for (int choice = 0; choice < stride; ++choice) {
        b[choice] += with_choice[s.price_offset[k] + choice] - slot_min;
      }
    }
  }
  return bound;
}

std::optional<RootFixings> DecompositionBound::Fix(const DecompositionPrices& prices,
                                                   double cutoff) {
  const std::optional<std::vector<std::vector<double>>> bound = ChoiceBounds(prices, true);
  if (!bound) return std::nullopt;
  const ScenarioContext& c = *c_;
  const Instance& in = *c.instance;
  // The surviving choices of each (job, slot) as a range of levels.
  RootFixings out;
  for (int j = 0; j < c.num_jobs(); ++j) {
    const Job& job = in.jobs[j];
    const int top = c.jobs[j]->num_modes(), stride = top + 1;
    for (int t = job.release_slot; t < job.deadline_slot; ++t) {
      int lo = top + 1, hi = -1;
      for (int choice = 0; choice < stride; ++choice) {
        const double b = (*bound)[j][static_cast<size_t>(t - job.release_slot) * stride + choice];
        const int level = choice == 0 ? 0 : level_of_mode_[j][choice - 1];
        ++out.choices;
        if (b >= cutoff) {
          ++out.removed_choices;
          out.removed_bound = std::min(out.removed_bound, b);
        } else {
          lo = std::min(lo, level);
          hi = std::max(hi, level);
        }
      }
      if (hi < 0) {
        out.restrictions.push_back({j, t, top, top});  // nothing left: no level at all
      } else if (lo > 0 || hi < top) {
        out.restrictions.push_back({j, t, lo - 1, hi});
      }
    }
  }
  return out;
}

}  // namespace ckptdp::internal
