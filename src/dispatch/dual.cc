#include "dispatch/internal/dual.h"

#include <algorithm>
#include <atomic>
#include <limits>
#include <numeric>

#include "ckptdp/communicator.h"
#include "dispatch/internal/job_partition.h"
#include "tbb/parallel_for.h"

namespace ckptdp::internal {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();

// Load band of the AIDC for the power subproblem: from the base load to the most the
// jobs active in the slot could draw, never above the site cap.
void LoadBand(const ScenarioContext& c, std::vector<double>& lo, std::vector<double>& hi) {
  const Instance& in = *c.instance;
  lo.assign(c.slots(), in.site.base_load_kw);
  hi.assign(c.slots(), in.site.base_load_kw);
  for (int j = 0; j < c.num_jobs(); ++j) {
    double max_kw = 0;
    for (int m = 0; m < c.jobs[j]->num_modes(); ++m) {
      max_kw = std::max(max_kw, in.site.pue * c.jobs[j]->it_power_kw(m));
    }
    const Job& job = in.jobs[j];
    for (int t = job.release_slot; t < job.deadline_slot; ++t) hi[t] += max_kw;
  }
  for (int t = 0; t < c.slots(); ++t) hi[t] = std::min(hi[t], in.site.site_power_cap_kw);
}

}  // namespace

std::vector<int> ModeLevels(const JobSubproblem& job) {
  std::vector<int> order(job.num_modes());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    if (job.gpus(a) != job.gpus(b)) return job.gpus(a) < job.gpus(b);
    return job.it_power_kw(a) < job.it_power_kw(b);
  });
  std::vector<int> level(job.num_modes());
  for (int i = 0; i < job.num_modes(); ++i) level[order[i]] = i + 1;
  return level;
}

void ApplyRestrictions(const ScenarioContext& c, int job,
                       const std::vector<const SlotRestriction*>& restrictions,
                       const std::vector<int>& level_of_mode, EdgeCosts& costs) {
  if (restrictions.empty()) return;
  const int slots = c.slots(), modes = c.jobs[job]->num_modes();
  costs.next_blocked.assign(static_cast<size_t>(modes) * (slots + 1), slots);
  costs.wait_forbidden.assign(slots, 0);
  for (const SlotRestriction* r : restrictions) {
    if (r->lo >= 0) costs.wait_forbidden[r->slot] = 1;
    for (int m = 0; m < modes; ++m) {
      if (level_of_mode[m] <= r->lo || level_of_mode[m] > r->hi) {
        costs.next_blocked[static_cast<size_t>(m) * (slots + 1) + r->slot] = r->slot;
      }
    }
  }
  // next_blocked[t] = first blocked slot >= t, filled backwards from the marks.
  for (int m = 0; m < modes; ++m) {
    int* row = costs.next_blocked.data() + static_cast<size_t>(m) * (slots + 1);
    for (int t = slots - 1; t >= 0; --t) {
      if (row[t] != t) row[t] = row[t + 1];
    }
  }
}

DualEvaluator::DualEvaluator(const ScenarioContext& context, Workspaces& work, int threads,
                             const Communicator* comm)
    : c_(context),
      work_(work),
      arena_(threads),
      plans_(context.num_jobs()),
      bounds_(context.num_jobs()),
      by_job_(context.num_jobs()),
      g_lambda_(context.slots()),
      g_mu_(context.slots()) {
  LoadBand(c_, load_lo_, load_hi_);
  for (int j = 0; j < c_.num_jobs(); ++j) levels_.push_back(ModeLevels(*c_.jobs[j]));
  gpu_kw_ = c_.instance->site.pue * c_.instance->site.gpu_train_power_kw;
  if (comm != nullptr && comm->distributed()) {
    comm_ = comm;
    mine_ = JobsOfRank(c_, comm->rank(), comm->size());
  } else {
    mine_.resize(c_.num_jobs());
    std::iota(mine_.begin(), mine_.end(), 0);
  }
}

// Every rank sends the plans and bounds of its jobs and receives everyone's, so that every
// rank holds all of them and sums them in job order, as a single process does: the value,
// the subgradient and everything after are the same bits whatever the number of ranks.
bool DualEvaluator::ShareJobResults(bool out_of_time) {
  BytesWriter out;
  out.Put<char>(out_of_time ? 1 : 0);
  for (int j : mine_) {
    out.Put<int>(j);
    out.Put<char>(plans_[j].feasible ? 1 : 0);
    out.Put<double>(plans_[j].cost);
    out.Put<double>(bounds_[j]);
    out.Put<int>(static_cast<int>(plans_[j].runs.size()));
    for (const Run& run : plans_[j].runs) out.Put<Run>(run);
  }
  bool any_out_of_time = false;
  for (const std::string& message : comm_->Allgather(out.bytes())) {
    BytesReader in(message);
    any_out_of_time = in.Get<char>() != 0 || any_out_of_time;
    while (!in.done()) {
      const int j = in.Get<int>();
      PathSolution& plan = plans_[j];
      plan.feasible = in.Get<char>() != 0;
      plan.cost = in.Get<double>();
      bounds_[j] = in.Get<double>();
      plan.runs.resize(in.Get<int>());
      for (Run& run : plan.runs) run = in.Get<Run>();
    }
  }
  return any_out_of_time;
}

absl::StatusOr<DualEvaluator::Outcome> DualEvaluator::Evaluate(
    const Multipliers& prices, const std::vector<SlotRestriction>& restrictions,
    const Deadline& deadline) {
  const std::vector<double>& lambda = prices.lambda;
  const std::vector<double>& mu = prices.mu;
  const Instance& in = *c_.instance;
  const int slots = c_.slots(), jobs = c_.num_jobs();
  for (auto& list : by_job_) list.clear();
  for (const SlotRestriction& r : restrictions) by_job_[r.job].push_back(&r);

  // On large instances (S3's DP over 2000 work units, hundreds of jobs) one evaluation
  // takes seconds: past the deadline, start no more jobs and drop the evaluation.
  std::atomic<bool> out_of_time{false};
  const Clock::time_point started = Clock::now();
  arena_.execute([&] {
    tbb::parallel_for(0, static_cast<int>(mine_.size()), [&](int i) {
      const int j = mine_[i];
      if (out_of_time.load(std::memory_order_relaxed) || deadline.Passed()) {
        out_of_time.store(true, std::memory_order_relaxed);
        return;
      }
      EdgeCosts& costs = costs_.local();
      PriceLagrangian(c_, j, prices, costs);
      ApplyRestrictions(c_, j, by_job_[j], levels_[j], costs);
      JobWorkspace& work = work_.Local();
      plans_[j] = c_.jobs[j]->Solve(costs, work);
      bounds_[j] = plans_[j].feasible ? c_.jobs[j]->LowerBound(costs, plans_[j], work) : kInf;
    });
  });
  // Distributed: the jobs of the other ranks arrive, and out of time on one rank is out of
  // time on all (they must take the same branch).
  bool stop = out_of_time.load();
  if (comm_ != nullptr) {
    const Clock::time_point solved = Clock::now();
    stop = ShareJobResults(stop);
    dp_seconds_ += std::chrono::duration<double>(solved - started).count();
    exchange_seconds_ += SecondsSince(solved);
  }
  if (stop) return Outcome::kOutOfTime;
  for (int j = 0; j < jobs; ++j) {
    if (!plans_[j].feasible) {
      infeasible_job_ = j;
      return Outcome::kJobInfeasible;
    }
  }
  CKPTDP_ASSIGN_OR_RETURN(PowerSubproblemSolution ps,
                          SolvePowerSubproblem(c_.power, lambda, load_lo_, load_hi_));
  power_value_ = ps.value_usd;
  value_ = ps.value_usd;
  for (int j = 0; j < jobs; ++j) value_ += bounds_[j];
  for (int t = 0; t < slots; ++t) {
    value_ += lambda[t] * in.site.base_load_kw - mu[t] * in.site.gpu_capacity;
  }

  // Subgradients of the dualised constraints at the current plans.
  std::vector<double> aidc(slots, in.site.base_load_kw);
  std::vector<int> gpus(slots, 0);
  for (int j = 0; j < jobs; ++j) AddJobLoad(c_, j, plans_[j].runs, +1, aidc, gpus);
  norm_ = 0;
  for (int t = 0; t < slots; ++t) {
    g_lambda_[t] = aidc[t] - ps.load_kw[t];
    g_mu_[t] = (gpus[t] - in.site.gpu_capacity) * gpu_kw_;
    if (mu[t] <= 0 && g_mu_[t] < 0) g_mu_[t] = 0;  // projected: mu stays >= 0
    norm_ += g_lambda_[t] * g_lambda_[t] + g_mu_[t] * g_mu_[t];
  }
  return Outcome::kOk;
}

absl::StatusOr<GapBreakdown> ExplainGap(const ScenarioContext& c, Workspaces& work, int threads,
                                        const Multipliers& prices, const Evaluated& incumbent) {
  const std::vector<double>& lambda = prices.lambda;
  const std::vector<double>& mu = prices.mu;
  GapBreakdown out;
  const int slots = c.slots();
  if (static_cast<int>(lambda.size()) != slots || static_cast<int>(mu.size()) != slots ||
      !incumbent.feasible) {
    return out;
  }
  const Instance& in = *c.instance;
  DualEvaluator dual(c, work, threads);
  CKPTDP_ASSIGN_OR_RETURN(const DualEvaluator::Outcome outcome,
                          dual.Evaluate(prices, {}, Clock::time_point::max()));
  if (outcome != DualEvaluator::Outcome::kOk) return out;
  out.available = true;
  out.root_bound_usd = dual.value();
  EdgeCosts costs;
  for (int j = 0; j < c.num_jobs(); ++j) {
    PriceLagrangian(c, j, prices, costs);
    out.job_paths_usd += PlanCost(c, j, incumbent.schedule.jobs[j], costs) - dual.job_bound(j);
  }
  // cost - bound = [cost - lambda . load - power optimum] + sum_j [path - bound_j]
  //              + sum_t mu_t (capacity - gpus_t), with load = base + the jobs' load.
  double lambda_load = 0;
  for (int t = 0; t < slots; ++t) {
    out.idle_capacity_usd += mu[t] * (in.site.gpu_capacity - incumbent.load.gpus[t]);
    lambda_load += lambda[t] * incumbent.load.aidc_kw[t];
  }
  out.power_side_usd = incumbent.cost_usd - lambda_load - dual.power_value();
  return out;
}

}  // namespace ckptdp::internal
