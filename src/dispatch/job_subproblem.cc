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
  const double unit_flops = modes.workload.compute_flops / units_;
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
  std::vector<int>& pred = work.pred;
  const int layers = deadline_ - release_ + 1, width = units_ + 1;
  value.assign(static_cast<size_t>(layers) * width, kInf);
  // pred = previous units * (modes + 1) + chosen mode + 1 (0 = idle).
  pred.assign(value.size(), -1);
  const int stride = num_modes() + 1;
  value[0] = 0.0;
  for (int ti = 0; ti + 1 < layers; ++ti) {
    const int t = release_ + ti;
    const double* row = &value[static_cast<size_t>(ti) * width];
    double* next = &value[static_cast<size_t>(ti + 1) * width];
    int* next_pred = &pred[static_cast<size_t>(ti + 1) * width];
    for (int u = 0; u <= units_; ++u) {
      const double v = row[u];
      if (v == kInf) continue;
      if (v < next[u] && costs.WaitAllowed(t)) {
        next[u] = v;
        next_pred[u] = u * stride;
      }
      for (int m = 0; m < num_modes(); ++m) {
        if (!costs.Allowed(m, t, t + 1)) continue;
        const int u2 = std::min(units_, u + units_per_slot[m]);
        const double c = v + costs.SlotCost(m, t);
        if (c < next[u2]) {
          next[u2] = c;
          next_pred[u2] = u * stride + m + 1;
        }
      }
    }
  }
  const double best = value[static_cast<size_t>(layers - 1) * width + units_];
  if (choice != nullptr && best < kInf) {
    choice->assign(layers - 1, -1);
    int u = units_;
    for (int ti = layers - 1; ti > 0; --ti) {
      const int code = pred[static_cast<size_t>(ti) * width + u];
      (*choice)[ti - 1] = code % (num_modes() + 1) - 1;
      u = code / (num_modes() + 1);
    }
  }
  return best;
}

PathSolution IdealSubproblem::Solve(const EdgeCosts& costs, JobWorkspace& work) const {
  PathSolution out;
  std::vector<int> choice;
  const double best = RunDp(costs, units_down_, &choice, work);
  if (best == kInf) return out;
  out.feasible = true;
  out.cost = best;
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

double IdealSubproblem::LowerBound(const EdgeCosts& costs, const PathSolution&,
                                   JobWorkspace& work) const {
  return RunDp(costs, units_up_, nullptr, work);
}

std::vector<std::unique_ptr<JobSubproblem>> BuildSubproblems(const Instance& instance,
                                                             const std::vector<JobModes>& modes,
                                                             bool checkpoints,
                                                             const GraphOptions& options) {
  std::vector<std::unique_ptr<JobSubproblem>> out;
  for (size_t j = 0; j < instance.jobs.size(); ++j) {
    if (checkpoints) {
      out.push_back(std::make_unique<GraphSubproblem>(
          CheckpointGraph(instance, static_cast<int>(j), modes[j], options)));
    } else {
      // 2000 work units keep the rounding gap near 0.05% of C_j per slot on the paper case.
      out.push_back(
          std::make_unique<IdealSubproblem>(instance, static_cast<int>(j), modes[j], 2000));
    }
  }
  return out;
}

}  // namespace ckptdp::internal
