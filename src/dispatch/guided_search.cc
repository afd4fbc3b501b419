// Primal heuristics guided by the relaxation: x-bar, RINS pricing and diving
// (guided_search.h).
#include "dispatch/internal/guided_search.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "dispatch/internal/repair.h"

namespace ckptdp::internal {

void RelaxedAverage::Add(const ScenarioContext& c, const std::vector<PathSolution>& plans) {
  if (train_.empty()) train_.assign(c.num_jobs(), std::vector<double>(c.slots(), 0.0));
  const double weight = next_weight_;
  for (int j = 0; j < c.num_jobs() && j < static_cast<int>(plans.size()); ++j) {
    for (const Run& r : plans[j].runs) {
      for (int t = r.start_slot; t < r.end_slot; ++t) train_[j][t] += weight;
    }
  }
  total_weight_ += weight;
  next_weight_ *= kGrowth;
  // Rescaled now and then (one pass over the table) so that the weights stay finite.
  if (next_weight_ > 1e100) {
    for (std::vector<double>& row : train_) {
      for (double& v : row) v /= next_weight_;
    }
    total_weight_ /= next_weight_;
    next_weight_ = 1;
  }
}

std::vector<double> RelaxedAverage::Disagreement(const ScenarioContext& c,
                                                 const Schedule& schedule) const {
  std::vector<double> out(c.num_jobs(), 0.0);
  if (empty()) return out;
  const Instance& in = *c.instance;
  std::vector<char> trains(c.slots());
  for (int j = 0; j < c.num_jobs(); ++j) {
    std::fill(trains.begin(), trains.end(), 0);
    for (const Run& r : schedule.jobs[j]) {
      for (int t = r.start_slot; t < r.end_slot; ++t) trains[t] = 1;
    }
    double d = 0;
    for (int t = in.jobs[j].release_slot; t < in.jobs[j].deadline_slot; ++t) {
      d += std::abs(static_cast<double>(trains[t]) - Share(j, t));
    }
    out[j] = d;
  }
  return out;
}

void AddGuidedGpuPrice(const ScenarioContext& c, int job, const Multipliers& prices,
                       const RelaxedAverage& guide, double share, EdgeCosts& costs) {
  if (prices.mu.empty() || share == 0) return;
  const JobSubproblem& sub = *c.jobs[job];
  for (int m = 0; m < sub.num_modes(); ++m) {
    double* row = costs.PrefixRow(m);
    double added = 0;
    for (int t = 0; t < c.slots(); ++t) {
      added += share * prices.mu[t] * (1.0 - guide.Share(job, t)) * sub.gpus(m);
      row[t + 1] += added;
    }
  }
}

void BlendEnergyPrice(const ScenarioContext& c, int job, const std::vector<double>& lambda,
                      double share, EdgeCosts& costs) {
  if (lambda.empty() || share == 0) return;
  const JobSubproblem& sub = *c.jobs[job];
  const double pue = c.instance->site.pue;
  for (int m = 0; m < sub.num_modes(); ++m) {
    double* row = costs.PrefixRow(m);
    const double kw = pue * sub.it_power_kw(m);
    double lagrangian = 0;
    for (int t = 0; t < c.slots(); ++t) {
      lagrangian += lambda[t] * kw;
      row[t + 1] = (1 - share) * row[t + 1] + share * lagrangian;
    }
  }
}

std::optional<Schedule> DiveOnAverage(const ScenarioContext& c, Workspaces& work,
                                      const RelaxedAverage& guide, const Multipliers& prices,
                                      double energy_share, double gpu_share,
                                      const Deadline& deadline) {
  if (guide.empty()) return std::nullopt;
  const Instance& in = *c.instance;
  const int jobs = c.num_jobs();
  // Most committed first: the GPU-slots x-bar gives the job in its baseline mode.
  std::vector<double> commitment(jobs, 0.0);
  for (int j = 0; j < jobs; ++j) {
    const JobModes& m = (*c.modes)[j];
    const int gpus = m.feasible[m.baseline].gpus;
    for (int t = in.jobs[j].release_slot; t < in.jobs[j].deadline_slot; ++t) {
      commitment[j] += guide.Share(j, t) * gpus;
    }
  }
  std::vector<int> order(jobs);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return commitment[a] > commitment[b]; });
  std::vector<double> aidc(c.slots(), in.site.base_load_kw);
  std::vector<int> gpus(c.slots(), 0);
  Schedule out;
  out.jobs.assign(jobs, {});
  EdgeCosts costs;
  for (int j : order) {
    if (deadline.Passed()) return std::nullopt;
    PriceMarginal(c, j, aidc, gpus, {}, costs);
    BlendEnergyPrice(c, j, prices.lambda, energy_share, costs);
    AddGuidedGpuPrice(c, j, prices, guide, gpu_share, costs);
    PathSolution p = c.jobs[j]->Solve(costs, work.Local());
    if (!p.feasible) return std::nullopt;
    out.jobs[j] = std::move(p.runs);
    AddJobLoad(c, j, out.jobs[j], +1, aidc, gpus);
  }
  return out;
}

absl::StatusOr<int> ImproveByDiving(const ScenarioContext& c, Workspaces& work,
                                    const RelaxedAverage& guide, const Multipliers& prices,
                                    const Deadline& deadline, int threads, Evaluated& incumbent) {
  // (energy share from lambda, share of the guided GPU price): the jobs not yet fixed
  // are present only through the multipliers, so each dive leans on them to a degree.
  constexpr double kBlends[][2] = {{0.5, 1.0}, {1.0, 1.0}, {0.5, 0.5}};
  int better = 0;
  for (const auto& blend : kBlends) {
    if (deadline.Passed()) break;
    std::optional<Schedule> dive =
        DiveOnAverage(c, work, guide, prices, blend[0], blend[1], deadline);
    if (!dive) continue;
    CKPTDP_ASSIGN_OR_RETURN(Evaluated e, Evaluate(c, std::move(*dive)));
    if (!e.feasible) continue;
    CKPTDP_RETURN_IF_ERROR(ImproveByLocalSearch(c, work, e, deadline, threads));
    if (e.feasible && Improves(e.cost_usd, incumbent.cost_usd)) {
      incumbent = std::move(e);
      ++better;
    }
  }
  return better;
}

}  // namespace ckptdp::internal
