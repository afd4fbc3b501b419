// Joint re-optimisation of 2-3 jobs against the fixed load of the others
// (pair_reoptimisation.h).
#include "dispatch/internal/pair_reoptimisation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "dispatch/internal/seeded_draws.h"

namespace ckptdp::internal {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// One candidate path of a job, with its load per slot (zero outside the job's window).
struct Column {
  std::vector<Run> runs;
  std::vector<double> kw;
  std::vector<int> gpus;
};

// The group's sub-problem: the background (every other job's load, and the incumbent's
// battery schedule as a fixed shift), the column pools and the three solvers.
class GroupProblem {
 public:
  GroupProblem(const ScenarioContext& c, Workspaces& work, const Evaluated& current,
               const std::vector<int>& jobs, int max_combinations)
      : c_(c), work_(work), jobs_(jobs), pool_(jobs.size()) {
    const Instance& in = *c.instance;
    const int n = static_cast<int>(jobs.size());
    cap_ = std::max(2, static_cast<int>(std::floor(
                           std::pow(static_cast<double>(max_combinations), 1.0 / n) + 1e-9)));
    bg_aidc_ = current.load.aidc_kw;
    bg_gpus_ = current.load.gpus;
    for (int j : jobs) AddJobLoad(c, j, current.schedule.jobs[j], -1, bg_aidc_, bg_gpus_);
    shift_ =
        c.traits.battery ? BatteryNetShift(current.power) : std::vector<double>(c.slots(), 0.0);
    lo_ = c.slots();
    hi_ = 0;
    for (int j : jobs) {
      lo_ = std::min(lo_, in.jobs[j].release_slot);
      hi_ = std::max(hi_, in.jobs[j].deadline_slot);
    }
    served_.assign(c.slots(), 0.0);
    base_cost_.assign(c.slots(), 0.0);
    for (int t = lo_; t < hi_; ++t) {
      served_[t] = bg_aidc_[t] + shift_[t];
      base_cost_[t] = SlotCostUsd(c.power, t, served_[t]);
    }
  }

  int size() const { return static_cast<int>(jobs_.size()); }
  const Column& column(int k, int index) const { return pool_[k][index]; }

  // The column's index in job k's pool (added if new), or -1 if the pool is full.
  int AddColumn(int k, std::vector<Run> runs) {
    for (size_t i = 0; i < pool_[k].size(); ++i) {
      if (pool_[k][i].runs == runs) return static_cast<int>(i);
    }
    if (static_cast<int>(pool_[k].size()) >= cap_) return -1;
    Column col;
    col.kw.assign(c_.slots(), 0.0);
    col.gpus.assign(c_.slots(), 0);
    AddJobLoad(c_, jobs_[k], runs, +1, col.kw, col.gpus);
    col.runs = std::move(runs);
    pool_[k].push_back(std::move(col));
    return static_cast<int>(pool_[k].size()) - 1;
  }

  // The group's exact marginal cost above the background for one column per job, or
  // infinity if their load exceeds a slot's residual GPUs or site power.
  double JointCost(const std::vector<int>& pick) const {
    const Site& site = c_.instance->site;
    double total = 0;
    for (int t = lo_; t < hi_; ++t) {
      double kw = 0;
      int gpus = 0;
      for (int k = 0; k < size(); ++k) {
        kw += pool_[k][pick[k]].kw[t];
        gpus += pool_[k][pick[k]].gpus[t];
      }
      if (gpus == 0) continue;
      if (bg_gpus_[t] + gpus > site.gpu_capacity ||
          bg_aidc_[t] + kw > site.site_power_cap_kw + kPowerSlackKw) {
        return kInfinity;
      }
      total += SlotCostUsd(c_.power, t, served_[t] + kw) - base_cost_[t];
    }
    return total;
  }

  // Each job in turn takes its exact best response (its path DP at the marginal cost of
  // the background plus the others' columns), until none changes. Returns whether any did.
  bool BestResponses(std::vector<int>& pick) {
    bool changed_any = false;
    constexpr int kMaxPasses = 8;
    for (int pass = 0; pass < kMaxPasses; ++pass) {
      bool changed = false;
      for (int k = 0; k < size(); ++k) {
        aidc_ = bg_aidc_;
        gpus_ = bg_gpus_;
        for (int o = 0; o < size(); ++o) {
          if (o == k) continue;
          AddJobLoad(c_, jobs_[o], pool_[o][pick[o]].runs, +1, aidc_, gpus_);
        }
        const int j = jobs_[k];
        PriceMarginal(c_, j, aidc_, gpus_, shift_, costs_);
        PathSolution p = c_.jobs[j]->Solve(costs_, work_.Local());
        if (!p.feasible || !Improves(p.cost, PlanCost(c_, j, pool_[k][pick[k]].runs, costs_))) {
          continue;
        }
        const int index = AddColumn(k, std::move(p.runs));
        if (index >= 0 && index != pick[k]) {
          pick[k] = index;
          changed = true;
        }
      }
      changed_any = changed_any || changed;
      if (!changed) break;
    }
    return changed_any;
  }

  // The group's Lagrangian dual (pair_reoptimisation.h), raised by a subgradient method
  // with Polyak steps towards `upper`; every path it produces joins the pools. Returns the
  // best bound (-infinity if a job has no path).
  double Dual(int iterations, double upper) {
    const Instance& in = *c_.instance;
    const double pue = in.site.pue;
    SetUpSlotSide();
    // lambda starts at the average marginal price of a typical mode's load in each slot.
    double typical_kw = 0;
    for (int j : jobs_) {
      double least = kInfinity;
      for (int m = 0; m < c_.jobs[j]->num_modes(); ++m)
        least = std::min(least, pue * c_.jobs[j]->it_power_kw(m));
      typical_kw += least / size();
    }
    std::vector<double> lambda(c_.slots(), 0.0), mu(c_.slots(), 0.0);
    for (int t = lo_; t < hi_; ++t) {
      lambda[t] =
          typical_kw > 0
              ? (SlotCostUsd(c_.power, t, served_[t] + typical_kw) - base_cost_[t]) / typical_kw
              : 0.0;
    }
    std::vector<double> load(c_.slots()), g_lambda(c_.slots()), g_mu(c_.slots());
    std::vector<int> gpus(c_.slots());
    double best = -kInfinity, step = 1.0;
    int since_best = 0;
    for (int it = 0; it < iterations; ++it) {
      std::fill(load.begin(), load.end(), 0.0);
      std::fill(gpus.begin(), gpus.end(), 0);
      double value = 0;
      for (int k = 0; k < size(); ++k) {
        const int j = jobs_[k];
        PriceAt(j, lambda, mu);
        PathSolution p = c_.jobs[j]->Solve(costs_, work_.Local());
        if (!p.feasible) return best;
        value += c_.jobs[j]->LowerBound(costs_, p, work_.Local());
        AddJobLoad(c_, j, p.runs, +1, load, gpus);
        AddColumn(k, std::move(p.runs));
      }
      double norm = 0;
      for (int t = lo_; t < hi_; ++t) {
        // The slot side: min over the candidates of F_t(L) - lambda_t L.
        const std::vector<std::pair<double, double>>& cands = candidates_[t - lo_];
        double h = kInfinity, at = 0;
        for (const auto& [kw, cost] : cands) {
          if (cost - lambda[t] * kw < h) {
            h = cost - lambda[t] * kw;
            at = kw;
          }
        }
        const int residual = in.site.gpu_capacity - bg_gpus_[t];
        value += h - mu[t] * residual;
        g_lambda[t] = load[t] - at;
        g_mu[t] = gpus[t] - residual;
        if (mu[t] <= 0 && g_mu[t] < 0) g_mu[t] = 0;
        norm += g_lambda[t] * g_lambda[t] + g_mu[t] * g_mu[t];
      }
      if (value > best + 1e-12 * std::max(1.0, std::abs(best))) {
        best = value;
        since_best = 0;
      } else if (++since_best >= 5) {
        step /= 2;
        since_best = 0;
      }
      if (norm <= 0 || upper - best <= 1e-9 * std::max(1.0, std::abs(upper))) break;
      const double s = step * std::max(upper - value, 1e-9 * std::max(1.0, std::abs(upper))) / norm;
      for (int t = lo_; t < hi_; ++t) {
        lambda[t] += s * g_lambda[t];
        mu[t] = std::max(0.0, mu[t] + s * g_mu[t]);
      }
    }
    return best;
  }

  // The cheapest combination of one column per job, by complete enumeration (the pools
  // hold at most max_combinations combinations). Returns its cost; `pick` is set to it.
  double Master(std::vector<int>& pick) const {
    std::vector<int> at(size(), 0);
    double best = JointCost(pick);
    while (true) {
      const double cost = JointCost(at);
      if (cost < best) {
        best = cost;
        pick = at;
      }
      int k = 0;
      while (k < size() && ++at[k] == static_cast<int>(pool_[k].size())) at[k++] = 0;
      if (k == size()) break;
    }
    return best;
  }

 private:
  // Per slot of the union window, the loads L where min_L F_t(L) - lambda L can lie: 0, the
  // most the group can add, and the kinks of the slot's cost in between, with F_t there.
  void SetUpSlotSide() {
    const Instance& in = *c_.instance;
    const double pue = in.site.pue;
    candidates_.assign(hi_ - lo_, {});
    for (int t = lo_; t < hi_; ++t) {
      double most = 0;
      for (int j : jobs_) {
        if (t < in.jobs[j].release_slot || t >= in.jobs[j].deadline_slot) continue;
        double top = 0;
        for (int m = 0; m < c_.jobs[j]->num_modes(); ++m)
          top = std::max(top, pue * c_.jobs[j]->it_power_kw(m));
        most += top;
      }
      most = std::max(0.0, std::min(most, in.site.site_power_cap_kw - bg_aidc_[t]));
      std::vector<std::pair<double, double>>& cands = candidates_[t - lo_];
      const auto add = [&](double kw) {
        cands.emplace_back(kw, SlotCostUsd(c_.power, t, served_[t] + kw) - base_cost_[t]);
      };
      add(0);
      if (most > 0) add(most);
      for (double kink : SlotCostKinksKw(c_.power, t)) {
        const double kw = kink - served_[t];
        if (kw > 0 && kw < most) add(kw);
      }
    }
  }

  // Job j's edges at lambda_t per kW and mu_t per GPU, its modes blocked where they alone
  // exceed the background's residual capacity.
  void PriceAt(int j, const std::vector<double>& lambda, const std::vector<double>& mu) {
    PriceMarginal(c_, j, bg_aidc_, bg_gpus_, shift_, costs_);
    const Job& job = c_.instance->jobs[j];
    const JobSubproblem& sub = *c_.jobs[j];
    const double pue = c_.instance->site.pue;
    for (int m = 0; m < sub.num_modes(); ++m) {
      double* row = costs_.PrefixRow(m);
      const double kw = pue * sub.it_power_kw(m);
      const double n = sub.gpus(m);
      for (int t = job.release_slot; t < job.deadline_slot; ++t)
        row[t + 1] = row[t] + lambda[t] * kw + mu[t] * n;
      for (int t = job.deadline_slot; t < c_.slots(); ++t) row[t + 1] = row[t];
    }
  }

  const ScenarioContext& c_;
  Workspaces& work_;
  std::vector<int> jobs_;
  std::vector<std::vector<Column>> pool_;
  int cap_ = 2;
  int lo_ = 0, hi_ = 0;  // the union of the jobs' windows
  std::vector<double> bg_aidc_, shift_, served_, base_cost_;
  std::vector<int> bg_gpus_;
  std::vector<std::vector<std::pair<double, double>>> candidates_;  // per slot: (L, F_t(L))
  EdgeCosts costs_;
  std::vector<double> aidc_;  // BestResponses scratch
  std::vector<int> gpus_;
};

}  // namespace

absl::StatusOr<GroupReoptimisation> ReoptimiseGroup(const ScenarioContext& c, Workspaces& work,
                                                    Evaluated& current,
                                                    const std::vector<int>& jobs,
                                                    const GroupReoptimisationOptions& options) {
  GroupReoptimisation out;
  out.group_bound = -kInfinity;
  if (jobs.empty() || !current.feasible) return out;
  GroupProblem group(c, work, current, jobs, options.max_combinations);
  std::vector<int> pick;
  for (int k = 0; k < group.size(); ++k)
    pick.push_back(group.AddColumn(k, current.schedule.jobs[jobs[k]]));
  out.incumbent_cost = group.JointCost(pick);
  // Best responses first: they are cheap, and the dual's steps aim at their value.
  group.BestResponses(pick);
  double best = group.JointCost(pick);
  out.group_bound = group.Dual(options.dual_iterations, best);
  // The master over the pools, then best responses from its choice, while they improve.
  constexpr int kMaxMasterRounds = 3;
  for (int round = 0; round < kMaxMasterRounds; ++round) {
    best = group.Master(pick);
    if (!group.BestResponses(pick)) break;
  }
  best = group.JointCost(pick);
  out.group_cost = best;
  out.proven = !c.traits.battery && best <= out.group_bound + 1e-6 * std::max(1.0, std::abs(best));
  if (!Improves(best, out.incumbent_cost)) return out;
  Schedule trial = current.schedule;
  for (int k = 0; k < group.size(); ++k) trial.jobs[jobs[k]] = group.column(k, pick[k]).runs;
  CKPTDP_ASSIGN_OR_RETURN(Evaluated e, Evaluate(c, std::move(trial)));
  if (e.feasible && Improves(e.cost_usd, current.cost_usd)) {
    current = std::move(e);
    out.improved = true;
  }
  return out;
}

std::vector<int> PickInteractingGroup(const ScenarioContext& c, const Evaluated& current,
                                      const std::vector<double>& weight, std::mt19937_64& rng) {
  const Instance& in = *c.instance;
  const int jobs = c.num_jobs();
  if (jobs == 0) return {};
  std::vector<double> w(weight);
  w.resize(jobs, 0.0);
  const int seed = DrawWeighted(rng, w);
  // The seed's dearest slot: where one more kW costs most at the incumbent's served load.
  const std::vector<double> shift =
      c.traits.battery ? BatteryNetShift(current.power) : std::vector<double>(c.slots(), 0.0);
  int dearest = -1;
  double dearest_price = -kInfinity;
  for (const Run& r : current.schedule.jobs[seed]) {
    for (int t = r.start_slot; t < r.end_slot; ++t) {
      const double served = current.load.aidc_kw[t] + shift[t];
      const double price = SlotCostUsd(c.power, t, served + 1.0) - SlotCostUsd(c.power, t, served);
      if (price > dearest_price) {
        dearest_price = price;
        dearest = t;
      }
    }
  }
  std::vector<int> related;
  if (dearest >= 0) {
    for (int j = 0; j < jobs; ++j) {
      if (j == seed) continue;
      for (const Run& r : current.schedule.jobs[j]) {
        if (r.start_slot <= dearest && dearest < r.end_slot) {
          related.push_back(j);
          break;
        }
      }
    }
  }
  if (related.empty()) {
    const Job& s = in.jobs[seed];
    for (int j = 0; j < jobs; ++j) {
      const Job& o = in.jobs[j];
      if (j != seed && o.release_slot < s.deadline_slot && s.release_slot < o.deadline_slot)
        related.push_back(j);
    }
  }
  // Partners by weight, each job keeping a tenth of the mean weight so that all can be drawn.
  double mean = 0;
  for (int j : related) mean += w[j];
  mean = related.empty() ? 0 : mean / related.size();
  std::vector<double> partner_weight;
  for (int j : related) partner_weight.push_back(w[j] + 0.1 * mean);
  std::vector<int> group = {seed};
  const int want = std::min(static_cast<int>(related.size()), 1 + Draw(rng, 2));
  for (int i = 0; i < want; ++i) {
    const int pick = DrawWeighted(rng, partner_weight);
    group.push_back(related[pick]);
    related.erase(related.begin() + pick);
    partner_weight.erase(partner_weight.begin() + pick);
  }
  return group;
}

}  // namespace ckptdp::internal
