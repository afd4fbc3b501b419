#include "dispatch/internal/evaluation.h"

#include <algorithm>

#include "absl/strings/str_format.h"
#include "dispatch/internal/stop_rules.h"
#include "tbb/task_arena.h"

namespace ckptdp::internal {
ScenarioContext MakeContext(const Instance& instance, const std::vector<JobModes>& modes,
                            Scenario scenario, int s3_work_units) {
  ScenarioContext c;
  c.instance = &instance;
  c.modes = &modes;
  c.traits = TraitsOf(scenario);
  c.power = PowerInputs::FromInstance(instance, c.traits.battery);
  GraphOptions options;
  options.allow_wait = c.traits.waiting;
  options.baseline_only = !c.traits.variable_modes;
  c.jobs = BuildSubproblems(instance, modes, c.traits.checkpoints, options, s3_work_units);
  for (int j = 0; j < c.num_jobs(); ++j) {
    std::vector<int> map(modes[j].feasible.size(), -1);
    for (int m = 0; m < c.jobs[j]->num_modes(); ++m) map[c.jobs[j]->feasible_index(m)] = m;
    c.graph_mode_of.push_back(std::move(map));
  }
  return c;
}

absl::StatusOr<Evaluated> Evaluate(const ScenarioContext& context, Schedule schedule) {
  Evaluated e;
  e.load = AggregateLoad(*context.instance, *context.modes, schedule);
  e.schedule = std::move(schedule);
  CKPTDP_RETURN_IF_ERROR(EvaluateLoad(context, e.load.gpus, e.load.aidc_kw, e));
  return e;
}

absl::Status EvaluateLoad(const ScenarioContext& context, const std::vector<int>& gpus,
                          const std::vector<double>& aidc_kw, Evaluated& out) {
  const Instance& in = *context.instance;
  out.feasible = false;
  out.violation.clear();
  for (int t = 0; t < context.slots(); ++t) {
    if (gpus[t] > in.site.gpu_capacity) {
      out.violation =
          absl::StrFormat("slot %d uses %d GPUs > capacity %d", t, gpus[t], in.site.gpu_capacity);
      return absl::OkStatus();
    }
    if (aidc_kw[t] > in.site.site_power_cap_kw + kPowerSlackKw) {
      out.violation = absl::StrFormat("slot %d draws %.1f kW > site cap %.1f kW", t, aidc_kw[t],
                                      in.site.site_power_cap_kw);
      return absl::OkStatus();
    }
  }
  absl::StatusOr<PowerDispatch> power = DispatchFixedLoad(context.power, aidc_kw);
  // Only the grid contract's import caps make a fixed load unservable: a violation.
  if (!power.ok() && context.power.HasGridContract() &&
      absl::IsFailedPrecondition(power.status())) {
    out.violation = std::string(power.status().message());
    return absl::OkStatus();
  }
  CKPTDP_RETURN_IF_ERROR(power.status());
  out.power = *std::move(power);
  out.cost_usd = out.power.TotalCostUsd();
  out.feasible = true;
  return absl::OkStatus();
}

void AddJobLoad(const ScenarioContext& context, int job, const std::vector<Run>& runs, int sign,
                std::vector<double>& aidc_kw, std::vector<int>& gpus) {
  const double pue = context.instance->site.pue;
  for (const Run& run : runs) {
    const Mode& m = (*context.modes)[job].feasible[run.mode];
    for (int t = run.start_slot; t < run.end_slot; ++t) {
      aidc_kw[t] += sign * pue * m.it_power_kw;
      gpus[t] += sign * m.gpus;
    }
  }
}

void PriceLagrangian(const ScenarioContext& context, int job, const Multipliers& prices,
                     EdgeCosts& costs) {
  const std::vector<double>& lambda = prices.lambda;
  const std::vector<double>& mu = prices.mu;
  const JobSubproblem& sub = *context.jobs[job];
  const int slots = context.slots();
  const double pue = context.instance->site.pue;
  // Subproblems read the prefix sums only up to the job's deadline: after it the rows stay
  // flat, as PriceMarginal leaves them, and the sums up to it are those over all slots
  // (the same operands in the same order, so the results are bit-identical). Zero-filling
  // the rows first and pricing the tail were wasted work (docs/benchmarks.md, session 30).
  const int deadline = context.instance->jobs[job].deadline_slot;
  costs.modes = sub.num_modes();
  costs.slots = slots;
  costs.prefix.resize(static_cast<size_t>(sub.num_modes()) * (slots + 1));
  costs.next_blocked.clear();
  costs.wait_forbidden.clear();
  costs.progress_lo.clear();  // the costs may be a scratch that another job used
  costs.progress_hi.clear();
  for (int m = 0; m < sub.num_modes(); ++m) {
    double* row = costs.PrefixRow(m);
    const double kw = pue * sub.it_power_kw(m);
    const double n = sub.gpus(m);
    row[0] = 0.0;
    for (int t = 0; t < deadline; ++t) row[t + 1] = row[t] + lambda[t] * kw + mu[t] * n;
    std::fill(row + deadline + 1, row + slots + 1, row[deadline]);
  }
}

void PriceMarginal(const ScenarioContext& context, int job,
                   const std::vector<double>& other_aidc_kw, const std::vector<int>& other_gpus,
                   const std::vector<double>& net_shift_kw, EdgeCosts& costs) {
  // Subproblems read costs and blocks only inside the job's window: outside it the prefix
  // sums stay flat and nothing is blocked. This is the neighbourhood search's inner loop.
  // So only the window is written: the prefix rows are zero up to the release and flat
  // after the deadline, and next_blocked is set from the release to the deadline (entries
  // outside may hold another job's values; no reader looks there). Clearing the whole
  // arrays cost as much as pricing them.
  MarkBlockedSlots(context, job, other_aidc_kw, other_gpus, costs);  // sizes costs too
  const JobSubproblem& sub = *context.jobs[job];
  const Job& spec = context.instance->jobs[job];
  const int release = spec.release_slot, deadline = spec.deadline_slot, slots = costs.slots;
  costs.prefix.resize(static_cast<size_t>(costs.modes) * (slots + 1));
  costs.wait_forbidden.clear();
  std::vector<double>& served = costs.scratch_served;
  std::vector<double>& base_cost = costs.scratch_base_cost;
  served.resize(slots);
  base_cost.resize(slots);
  for (int t = release; t < deadline; ++t) {
    served[t] = other_aidc_kw[t] + (net_shift_kw.empty() ? 0.0 : net_shift_kw[t]);
    base_cost[t] = SlotCostUsd(context.power, t, served[t]);
  }
  for (int m = 0; m < costs.modes; ++m) {
    double* row = costs.PrefixRow(m);
    const double kw = context.instance->site.pue * sub.it_power_kw(m);
    std::fill(row, row + release + 1, 0.0);
    for (int t = release; t < deadline; ++t) {
      row[t + 1] = row[t] + (SlotCostUsd(context.power, t, served[t] + kw) - base_cost[t]);
    }
    for (int t = deadline; t < slots; ++t) row[t + 1] = row[t];
  }
}

void MarkBlockedSlots(const ScenarioContext& context, int job,
                      const std::vector<double>& other_aidc_kw, const std::vector<int>& other_gpus,
                      EdgeCosts& costs) {
  const JobSubproblem& sub = *context.jobs[job];
  const Site& site = context.instance->site;
  const Job& spec = context.instance->jobs[job];
  costs.modes = sub.num_modes();
  costs.slots = context.slots();
  const size_t row_width = static_cast<size_t>(costs.slots) + 1;
  costs.next_blocked.resize(static_cast<size_t>(costs.modes) * row_width);
  for (int m = 0; m < costs.modes; ++m) {
    int* blocked = costs.next_blocked.data() + static_cast<size_t>(m) * row_width;
    const double kw = site.pue * sub.it_power_kw(m);
    const int gpus = sub.gpus(m);
    blocked[spec.deadline_slot] = costs.slots;
    // next_blocked[t] = first slot >= t where the mode does not fit; filled backwards.
    for (int t = spec.deadline_slot - 1; t >= spec.release_slot; --t) {
      const bool fits = other_gpus[t] + gpus <= site.gpu_capacity &&
                        other_aidc_kw[t] + kw <= site.site_power_cap_kw + kPowerSlackKw;
      blocked[t] = fits ? blocked[t + 1] : t;
    }
  }
}

bool WithinSiteLimits(const Instance& instance, int gpus, double aidc_kw) {
  return gpus <= instance.site.gpu_capacity &&
         aidc_kw <= instance.site.site_power_cap_kw + kPowerSlackKw;
}

std::vector<double> BatteryNetShift(const PowerDispatch& power) {
  std::vector<double> shift(power.slots.size());
  for (size_t t = 0; t < shift.size(); ++t) {
    shift[t] = power.slots[t].charge_kw - power.slots[t].discharge_kw;
  }
  return shift;
}

int ResolveThreads(int requested) {
  return requested > 0 ? requested : tbb::this_task_arena::max_concurrency();
}

double PlanCost(const ScenarioContext& context, int job, const std::vector<Run>& runs,
                const EdgeCosts& costs) {
  double total = 0;
  for (const Run& run : runs) {
    const int m = context.graph_mode_of[job][run.mode];
    total += costs.Cost(m, run.start_slot, run.end_slot);
  }
  return total;
}

}  // namespace ckptdp::internal
