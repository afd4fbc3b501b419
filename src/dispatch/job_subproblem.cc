#include "dispatch/internal/job_subproblem.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ckptdp::internal {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

IdealSubproblem::IdealSubproblem(const Instance& instance, int job_index, const JobModes& modes,
                                 int units)
    : release_(instance.jobs[job_index].release_slot),
      deadline_(instance.jobs[job_index].deadline_slot),
      units_(units),
      slot_seconds_(instance.time.StepHours() * 3600.0) {
  compute_flops_ = modes.workload.compute_flops;
  const double unit_flops = compute_flops_ / units_;
  // Effective modes plus the baseline, as in the checkpoint graph (graph.h).
  std::vector<int> graph_modes = modes.effective;
  if (!modes.feasible[modes.baseline].effective) graph_modes.push_back(modes.baseline);
  for (int feasible : graph_modes) {
    const Mode& m = modes.feasible[feasible];
    mode_index_.push_back(feasible);
    gpus_.push_back(m.gpus);
    it_power_kw_.push_back(m.it_power_kw);
    const double work = m.throughput_flops * slot_seconds_;
    work_per_slot_.push_back(work);
    work_fraction_.push_back(work / compute_flops_);
    const double exact_units = work / unit_flops;
    // Round-off-forgiving: a mode delivering exactly 3 units must count 3 both ways.
    const double nearest = std::round(exact_units);
    const bool integral = std::abs(exact_units - nearest) <= 1e-9 * std::max(1.0, exact_units);
    units_down_.push_back(static_cast<int>(integral ? nearest : std::floor(exact_units)));
    units_up_.push_back(static_cast<int>(integral ? nearest : std::ceil(exact_units)));
  }
}

double IdealSubproblem::RunDp(const EdgeCosts& costs, const std::vector<int>& units_per_slot,
                              std::vector<int>* choice, JobWorkspace& work) const {
  std::vector<double>& value = work.value;
  std::vector<double>& tail_min = work.tail_min;
  const int layers = deadline_ - release_ + 1, width = units_ + 1;
  value.assign(static_cast<size_t>(layers) * width, kInf);
  tail_min.resize(width);
  value[0] = 0.0;
  // Values only, forward: each option of slot t is a shift of the layer by its units plus
  // its cost, a min-plus loop without branches (the DP is nearly all of S3's time). Levels
  // past the goal count as the goal, so the goal's value from an option of `step` units is
  // the least value at or above units_ - step plus the cost (the same double: adding a
  // cost is monotone in rounding).
  int reach = 0;  // the highest level with a finite value in the current layer
  for (int ti = 0; ti + 1 < layers; ++ti) {
    const int t = release_ + ti;
    const double* row = &value[static_cast<size_t>(ti) * width];
    double* next = &value[static_cast<size_t>(ti + 1) * width];
    tail_min[reach] = row[reach];
    for (int u = reach - 1; u >= 0; --u) tail_min[u] = std::min(row[u], tail_min[u + 1]);
    int next_reach = -1;
    const auto shift = [&](int step, double cost) {
      const int last_uncapped = std::min(reach, units_ - step - 1);
      for (int u = 0; u <= last_uncapped; ++u) {
        next[u + step] = std::min(next[u + step], row[u] + cost);
      }
      if (reach + step >= units_) {
        next[units_] = std::min(next[units_], tail_min[std::max(0, units_ - step)] + cost);
      }
      next_reach = std::max(next_reach, std::min(units_, reach + step));
    };
    if (costs.WaitAllowed(t)) shift(0, 0.0);
    for (int m = 0; m < num_modes(); ++m) {
      if (costs.Allowed(m, t, t + 1)) shift(units_per_slot[m], costs.SlotCost(m, t));
    }
    if (next_reach < 0) return kInf;  // no option in this slot: no plan
    reach = next_reach;
  }
  const double best = value[static_cast<size_t>(layers - 1) * width + units_];
  if (choice == nullptr || best == kInf) return best;
  // Backward: in each slot, among the (level, option) pairs that give the level reached its
  // value, the first in the order (level, idle before the modes, mode): the plan a forward
  // pass that kept the first strict improvement would have recorded.
  choice->assign(layers - 1, -1);
  int u2 = units_;
  for (int ti = layers - 1; ti > 0; --ti) {
    const int t = release_ + ti - 1;
    const double* row = &value[static_cast<size_t>(ti - 1) * width];
    const double target = value[static_cast<size_t>(ti) * width + u2];
    int best_level = -1, best_mode = 0;
    const auto consider = [&](int step, double cost, int mode) {
      // Sources: u2 - step, or every level from units_ - step up when u2 is the goal.
      const int lo = u2 == units_ ? std::max(0, units_ - step) : u2 - step;
      const int hi = u2 == units_ ? units_ : u2 - step;
      // Only a lower level than the best so far can take its place.
      const int last = best_level >= 0 ? std::min(hi, best_level - 1) : hi;
      for (int u = std::max(lo, 0); u <= last; ++u) {
        if (row[u] + cost == target) {
          best_level = u;
          best_mode = mode;
          break;
        }
      }
    };
    if (costs.WaitAllowed(t)) consider(0, 0.0, -1);
    for (int m = 0; m < num_modes(); ++m) {
      if (costs.Allowed(m, t, t + 1)) consider(units_per_slot[m], costs.SlotCost(m, t), m);
    }
    (*choice)[ti - 1] = best_mode;
    u2 = best_level;
  }
  return best;
}

PathSolution IdealSubproblem::Solve(const EdgeCosts& costs, JobWorkspace& work) const {
  PathSolution out;
  std::vector<int> choice;
  const double best = RunDp(costs, units_down_, &choice, work);
  if (best == kInf) return out;
  out.feasible = true;
  out.cost = best - TrimExcessWork(costs, choice);
  for (int i = 0; i < static_cast<int>(choice.size());) {
    const int m = choice[i];
    int j = i + 1;
    while (j < static_cast<int>(choice.size()) && choice[j] == m) ++j;
    if (m >= 0) {
      Run run;
      run.start_slot = release_ + i;
      run.end_slot = release_ + j;
      run.mode = mode_index_[m];
      run.work_flops = (j - i) * work_per_slot_[m];
      out.runs.push_back(run);
    }
    i = j;
  }
  return out;
}

double IdealSubproblem::TrimExcessWork(const EdgeCosts& costs, std::vector<int>& choice) const {
  double delivered = 0;
  for (int m : choice) {
    if (m >= 0) delivered += work_per_slot_[m];
  }
  double saved = 0;
  // Each pass takes the single change that saves most and keeps the exact work at or above
  // C_j (ties: the earliest slot, then idle before the lowest mode), so it is deterministic.
  // Every change lowers the cost, so the passes end.
  for (;;) {
    double best_saving = 0;
    int best_slot = -1, best_mode = -1;
    for (int i = 0; i < static_cast<int>(choice.size()); ++i) {
      const int m = choice[i];
      if (m < 0) continue;
      const int t = release_ + i;
      const double now = costs.SlotCost(m, t);
      const double rest = delivered - work_per_slot_[m];
      if (costs.WaitAllowed(t) && rest >= compute_flops_ && now > best_saving) {
        best_saving = now;
        best_slot = i;
        best_mode = -1;
      }
      for (int m2 = 0; m2 < num_modes(); ++m2) {
        if (m2 == m || !costs.Allowed(m2, t, t + 1)) continue;
        if (rest + work_per_slot_[m2] < compute_flops_) continue;
        const double saving = now - costs.SlotCost(m2, t);
        if (saving > best_saving) {
          best_saving = saving;
          best_slot = i;
          best_mode = m2;
        }
      }
    }
    if (best_slot < 0) return saved;
    const int m = choice[best_slot];
    delivered += (best_mode >= 0 ? work_per_slot_[best_mode] : 0.0) - work_per_slot_[m];
    choice[best_slot] = best_mode;
    saved += best_saving;
  }
}

double IdealSubproblem::LpBound(const EdgeCosts& costs) const {
  // g(s) = s * need + sum_t min over the slot's options of (cost - s f): concave and
  // piecewise linear in s, with slope need - (the fractions the minimising options
  // deliver). Bisection on the slope's sign finds its maximum to round-off; g at any s >= 0
  // is a valid bound. `need` is C_j less the checker's tolerance (1e-9 of it), so the bound
  // holds for every plan the checker accepts, even one a rounding error short of C_j.
  constexpr double kNeed = 1.0 - 1e-9;
  const auto evaluate = [&](double s, double* slope) {
    double value = s * kNeed, delivered = 0;
    for (int t = release_; t < deadline_; ++t) {
      double cheapest = costs.WaitAllowed(t) ? 0.0 : kInf;
      double fraction = 0;
      for (int m = 0; m < num_modes(); ++m) {
        if (!costs.Allowed(m, t, t + 1)) continue;
        const double v = costs.SlotCost(m, t) - s * work_fraction_[m];
        if (v < cheapest) {
          cheapest = v;
          fraction = work_fraction_[m];
        }
      }
      if (cheapest == kInf) return kInf;  // the slot has no option: no plan exists
      value += cheapest;
      delivered += fraction;
    }
    *slope = kNeed - delivered;
    return value;
  };
  double slope = 0;
  double lo = 0, best = evaluate(0.0, &slope);
  if (best == kInf || slope <= 0) return best;
  double hi = 1.0;
  for (int i = 0; i < 200; ++i, hi *= 2) {  // the first s whose options deliver C_j
    best = std::max(best, evaluate(hi, &slope));
    if (slope <= 0) break;
    lo = hi;
  }
  // Still short: no plan reaches C_j, and g grows without limit; what it reached is valid.
  if (slope > 0) return best;
  for (int i = 0; i < 100 && hi - lo > 1e-12 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    best = std::max(best, evaluate(mid, &slope));
    (slope > 0 ? lo : hi) = mid;
  }
  return best;
}

double IdealSubproblem::LowerBound(const EdgeCosts& costs, const PathSolution&,
                                   JobWorkspace& work) const {
  return std::max(RunDp(costs, units_up_, nullptr, work), LpBound(costs));
}

std::vector<std::unique_ptr<JobSubproblem>> BuildSubproblems(const Instance& instance,
                                                             const std::vector<JobModes>& modes,
                                                             bool checkpoints,
                                                             const GraphOptions& options,
                                                             int s3_work_units) {
  std::vector<std::unique_ptr<JobSubproblem>> out;
  for (size_t j = 0; j < instance.jobs.size(); ++j) {
    if (checkpoints) {
      out.push_back(std::make_unique<GraphSubproblem>(
          CheckpointGraph(instance, static_cast<int>(j), modes[j], options)));
    } else {
      out.push_back(std::make_unique<IdealSubproblem>(instance, static_cast<int>(j), modes[j],
                                                      s3_work_units));
    }
  }
  return out;
}

}  // namespace ckptdp::internal
